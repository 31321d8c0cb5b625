// Every migration, in order. Append new ones at the end; never edit one that has shipped.
import { Foundation1763700000000 } from './1763700000000-foundation';
import { Contacts1763700000100 } from './1763700000100-contacts';
import { ContactsIndexes1763700000200 } from './1763700000200-contacts-indexes';
import { Segments1763700000300 } from './1763700000300-segments';
import { SegmentsIndexes1763700000301 } from './1763700000301-segments-indexes';
import { Messaging1763700000400 } from './1763700000400-messaging';
import { ContactImports1763700000500 } from './1763700000500-contact-imports';
import { Webhooks1763700000600 } from './1763700000600-webhooks';
import { Campaigns1763700000700 } from './1763700000700-campaigns';
import { CampaignFanout1763700000710 } from './1763700000710-campaign-fanout';
import { WebhookDeliveriesFillfactor1763700001000 } from './1763700001000-webhook-deliveries-fillfactor';
import { ContactTagIds1763700001400 } from './1763700001400-contact-tag-ids';
import { ContactTriggerCosts1763700001500 } from './1763700001500-contact-trigger-costs';
import { OrganizationChangedNotify1763700001600 } from './1763700001600-organization-changed-notify';
import { MessageRawBytea1763700001610 } from './1763700001610-message-raw-bytea';
import { DeliveryFillfactor1763700001800 } from './1763700001800-delivery-fillfactor';
import { WebhookDeliveryQueue1763700003000 } from './1763700003000-webhook-delivery-queue';
import { ContactEventOutbox1763700003300 } from './1763700003300-contact-event-outbox';
import { ContactWriterPreset1763700003600 } from './1763700003600-contact-writer-preset';
import { WebhookQueueEndpointIndex1763700004020 } from './1763700004020-webhook-queue-endpoint-index';
import { ImportFileStorage1763700004200 } from './1763700004200-import-file-storage';

export const MIGRATIONS = [
  Foundation1763700000000,
  Contacts1763700000100,
  ContactsIndexes1763700000200,
  Segments1763700000300,
  SegmentsIndexes1763700000301,
  Messaging1763700000400,
  ContactImports1763700000500,
  Webhooks1763700000600,
  Campaigns1763700000700,
  CampaignFanout1763700000710,
  WebhookDeliveriesFillfactor1763700001000,
  ContactTagIds1763700001400,
  ContactTriggerCosts1763700001500,
  OrganizationChangedNotify1763700001600,
  MessageRawBytea1763700001610,
  DeliveryFillfactor1763700001800,
  WebhookDeliveryQueue1763700003000,
  ContactEventOutbox1763700003300,
  ContactWriterPreset1763700003600,
  WebhookQueueEndpointIndex1763700004020,
  ImportFileStorage1763700004200,
];
