// Names for the OpenAPI document's schemas that several pages pass around; aliases only; the
// shapes are the document's (schema.d.ts).
import type { components } from './schema';

type Schemas = components['schemas'];

export type Contact = Schemas['ContactResponse'];
export type ContactList = Schemas['ContactListResponse'];
export type ContactImport = Schemas['ContactImportResponse'];
export type FieldMapping = Schemas['ContactImportFieldMappingResponse'];
export type Segment = Schemas['SegmentResponse'];
export type SegmentGroup = Schemas['SegmentRuleGroupResponse'];
export type Campaign = Schemas['CampaignResponse'];
export type WebhookEndpoint = Schemas['WebhookEndpointResponse'];
export type WebhookStatistics = Schemas['WebhookStatisticsResponse'];
export type ApiKey = Schemas['ApiKeyResponse'];
export type SendingDomain = Schemas['SendingDomainResponse'];
export type DnsRecord = Schemas['DnsRecordResponse'];
export type ChannelProvider = Schemas['ChannelProviderResponse'];
export type ProviderChannel = ChannelProvider['channel'];

export type Channel = Schemas['Channel'];
export type ContactStatus = Schemas['ContactStatus'];
export type EmailStatus = Schemas['EmailStatus'];
export type MessageStatus = Schemas['MessageStatus'];
export type Scope = Schemas['Scope'];
export type WebhookEventType = Schemas['WebhookEventType'];
