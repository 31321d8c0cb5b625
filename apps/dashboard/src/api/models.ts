// Response models of the API, written from the contract's resource tables (spec, §5–§11). The
// OpenAPI document types requests; these type the `data` the dashboard reads. A route whose response
// the document describes is typed from it instead.
import type { components } from './schema';

export type Plan = 'free' | 'pro' | 'enterprise';
export type Role = 'owner' | 'admin' | 'member';

export interface UserOrganization {
  id: string;
  name: string;
  plan: Plan;
  role: Role;
}

export interface LoginResult {
  accessToken: string;
  expiresAt: string;
}

export interface ContactEmail {
  id: string;
  email: string;
  status: string;
  isPrimary: boolean;
  bounceCount: number;
  complaintCount: number;
  verifiedAt?: string | null;
  lastBouncedAt?: string | null;
  lastComplainedAt?: string | null;
  createdAt: string;
}

/** A channel record other than email: the fields the detail page shows. */
export interface ChannelRecord {
  id: string;
  status: string;
  isPrimary: boolean;
  phoneNumber?: string | null;
  username?: string | null;
  appleId?: string;
  deviceToken?: string;
  platform?: string;
  verifiedAt?: string | null;
  /** SMS: when the number opted out (STOP, or set through the API). */
  optedOutAt?: string | null;
  /** WhatsApp: when the contact was last seen. */
  lastSeenAt?: string | null;
  /** Telegram: when the contact was last active. */
  lastActiveAt?: string | null;
  /** Push: when a push last went out to the token. */
  lastUsedAt?: string | null;
  expiresAt?: string | null;
  createdAt: string;
}

export interface ListMembership {
  id: string;
  contactId: string;
  contactListId: string;
  status: 'subscribed' | 'unsubscribed';
  subscribedAt: string | null;
  unsubscribedAt: string | null;
  contactList?: { id: string; name: string };
  contact?: Contact;
}

export interface Contact {
  id: string;
  firstName: string | null;
  lastName: string | null;
  displayName: string | null;
  timezone: string | null;
  language: string | null;
  status: 'active' | 'inactive' | 'archived' | null;
  notes: string | null;
  customFields: Record<string, unknown> | null;
  lastActivityAt: string | null;
  tags: string[];
  createdAt: string;
  updatedAt: string;
  emails?: ContactEmail[];
  smsNumbers?: ChannelRecord[];
  whatsappAccounts?: ChannelRecord[];
  telegramAccounts?: ChannelRecord[];
  imessageAccounts?: ChannelRecord[];
  pushNotifications?: ChannelRecord[];
  listMemberships?: ListMembership[];
}

export interface ContactList {
  id: string;
  cuid: string;
  name: string;
  description: string | null;
  status: string;
  isDefault: boolean;
  subscriberCount: number;
  createdAt: string;
}

export interface Tag {
  id: string;
  name: string;
  contactCount: number;
}

export interface SegmentCondition {
  field: string;
  operator: string;
  value?: unknown;
}

export interface SegmentGroup {
  operator: 'and' | 'or';
  conditions: (SegmentCondition | SegmentGroup)[];
}

export interface Segment {
  id: string;
  name: string;
  description: string | null;
  type: 'static' | 'dynamic';
  rules: SegmentGroup | null;
  contactCount: number | null;
  createdAt: string;
  updatedAt: string;
}

export interface SegmentPreview {
  count: number;
  sample: Contact[];
}

export interface FieldMapping {
  csvHeader: string;
  serviceField: string;
}

export interface ContactImport {
  id: string;
  fileName: string;
  status: string;
  totalRows: number;
  processedRows: number;
  successCount: number;
  errorCount: number;
  newCount: number;
  duplicateCount: number;
  duplicateHandling: string;
  listName: string | null;
  tags: string[];
  fieldMappings: FieldMapping[];
  errorsFilePath: string | null;
  errorReason: string | null;
  createdAt: string;
  completedAt: string | null;
}

export interface ImportUpload {
  import: ContactImport;
  preview: { headers: string[]; rows: string[][]; suggestedMappings: FieldMapping[] };
}

export interface MessageSummary {
  jobId: string;
  /** `email`, `sms`, `push`, `whatsapp`, `telegram` or `imessage`. */
  channel: string;
  messageId: string;
  senderAddress: string;
  campaignId: string | null;
  contactId: string | null;
  recipients: string[];
  status: string;
  tags: string[];
  createdAt: string;
  completedAt: string | null;
  retentionDays: number;
}

export interface DeliveryAttempt {
  recipient: string | null;
  status: string;
  smtpCode: number | null;
  smtpMessage: string | null;
  mxHost: string | null;
  outboundIp: string | null;
  retryCount: number;
  attemptedAt: string;
  /** Beyond email: the provider's error code. */
  providerCode?: string | null;
  /** SMS: the segments billed. */
  segments?: number | null;
}

export interface EngagementEvent {
  type: string;
  recipient: string | null;
  userAgent: string | null;
  remoteIp: string | null;
  occurredAt: string;
  url?: string;
}

export interface Message extends MessageSummary {
  deliveryAttempts: DeliveryAttempt[];
  engagementEvents: EngagementEvent[];
}

/** GET /campaigns (each item) and the campaign routes' answers. */
export type Campaign = components['schemas']['CampaignResponse'];

export interface Trend {
  direction: 'up' | 'down' | 'neutral';
  value: number;
}

export interface RevenueReport {
  overview: {
    totalRevenue: number;
    totalConversions: number;
    avgOrderValue: number;
    revenuePerEmail: number;
    trends: { revenue: Trend; conversions: Trend };
  };
  trend: { date: string; revenue: number }[];
  byChannel: { channel: string; revenue: number }[];
  topCampaigns: {
    name: string;
    revenue: number;
    conversions: number;
    avgOrderValue: number;
    conversionRate: number;
  }[];
}

export interface WebhookEndpoint {
  id: string;
  url: string;
  description: string | null;
  events: string[];
  isActive: boolean;
  maxRetries: number;
  customHeaders: { key: string; value: string }[];
  timeoutSeconds: number;
  lastTriggeredAt: string | null;
  createdAt: string;
  totalDeliveries: number;
  successRate: number;
}

export interface WebhookStatistics {
  totalEndpoints: number;
  activeEndpoints: number;
  inactiveEndpoints: number;
  failingEndpoints: number;
  totalDeliveries: number;
  overallSuccessRate: number;
}

export interface WebhookAttempt {
  id: string;
  attemptNumber: number;
  httpStatusCode: number | null;
  errorMessage: string | null;
  durationMs: number | null;
  startedAt: string;
}

export interface WebhookDelivery {
  id: string;
  webhookEndpointId: string;
  type: string;
  status: string;
  attemptCount: number;
  httpStatusCode: number | null;
  errorMessage: string | null;
  nextRetryAt: string | null;
  deliveredAt: string | null;
  createdAt: string;
  attempts?: WebhookAttempt[];
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  rateLimitPerMinute: number;
  rateLimitPerDay: number | null;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  createdAt: string;
}

/** A sending domain (§13) and its DNS records, as the document describes them. */
export type SendingDomain = components['schemas']['SendingDomainResponse'];
export type DnsRecord = components['schemas']['DnsRecordResponse'];
export type DomainStatus = SendingDomain['status'];

/** A channel provider account (§17) and a test send's answer, as the document describes them. */
export type ChannelProvider = components['schemas']['ChannelProviderResponse'];
export type ProviderChannel = ChannelProvider['channel'];
export type ProviderStatus = ChannelProvider['status'];
export type TestSendResult = components['schemas']['ChannelProviderTestResponse'];
