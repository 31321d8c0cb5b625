// Every entity the data source maps. Each area appends its own.
import { ContactList } from '../contacts/contact-list.entity';
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
  WebhookEndpoint,
  WebhookDelivery,
  WebhookAttempt,
];
