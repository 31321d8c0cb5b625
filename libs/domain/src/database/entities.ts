// Every entity the data source maps. Each area appends its own.
import { ChannelProvider } from '../channels/channel-provider.entity';
import { Campaign, CampaignRecipient } from '../campaigns/campaign.entity';
import { Conversion } from '../campaigns/conversion.entity';
import {
  ContactEmail,
  ContactImessage,
  ContactPush,
  ContactSms,
  ContactTelegram,
  ContactWhatsapp,
} from '../contacts/contact-channels.entity';
import { ContactList } from '../contacts/contact-list.entity';
import { ContactListMembership } from '../contacts/contact-list-membership.entity';
import { ContactListTag, ContactTag } from '../contacts/contact-tag.entity';
import { Contact } from '../contacts/contact.entity';
import { ContactSegment } from '../segments/contact-segment.entity';
import { ContactImport } from '../imports/contact-import.entity';
import { SendingDomain } from '../sending-domains/sending-domain.entity';
import { ApiKey } from '../tenancy/api-key.entity';
import { Organization } from '../tenancy/organization.entity';
import { AccessToken, Membership, User } from '../tenancy/user.entity';
import { WebhookAttempt } from '../webhooks/webhook-attempt.entity';
import { WebhookDelivery } from '../webhooks/webhook-delivery.entity';
import { WebhookEndpoint } from '../webhooks/webhook-endpoint.entity';

export const ENTITIES = [
  Organization,
  ApiKey,
  User,
  Membership,
  AccessToken,
  ContactList,
  ContactSegment,
  Campaign,
  CampaignRecipient,
  Conversion,
  Contact,
  ContactEmail,
  ContactSms,
  ContactWhatsapp,
  ContactTelegram,
  ContactImessage,
  ContactPush,
  ContactTag,
  ContactListTag,
  ContactListMembership,
  WebhookEndpoint,
  WebhookDelivery,
  WebhookAttempt,
  ContactImport,
  SendingDomain,
  ChannelProvider,
];
