// The channels of a campaign (§17) as the composer and the detail page use them, typed from the
// OpenAPI document.
import type { components } from '../../api/schema';
import { channelValues } from '../../api/schema-values';

type Schemas = components['schemas'];
export type CreateCampaignBody = Schemas['CreateCampaignDto'];
export type CampaignContent = Schemas['CampaignContentDto'];
export type CampaignChannel = NonNullable<CreateCampaignBody['channels']>[number];
export type ReachRequest = Schemas['CampaignReachRequestDto'];
export type TelegramParseMode = NonNullable<Schemas['TelegramContentDto']['parseMode']>;

/** Every channel with its label; `satisfies` keeps it in step with the document's enum. */
export const CHANNEL_LABELS = {
  email: 'Email',
  sms: 'SMS',
  whatsapp: 'WhatsApp',
  telegram: 'Telegram',
  imessage: 'iMessage',
  push: 'Push',
} as const satisfies Record<CampaignChannel, string>;

/** Every channel, in the document's order. */
export const ALL_CHANNELS: readonly CampaignChannel[] = channelValues;

export const channelLabel = (c: string): string =>
  (CHANNEL_LABELS as Record<string, string>)[c] ?? c;

/** POST /campaigns/reach: who each channel of the order would reach now. */
export type CampaignReach = Schemas['CampaignReachResponse'];

/** GET /campaigns/{id}: one channel's recipients by fan-out status and messages by delivery status. */
export type ChannelSummary = Schemas['CampaignChannelSummaryResponse'];

/** GET /campaigns/{id}: the campaign with its messages by status, in all and by channel. */
export type CampaignDetail = Schemas['CampaignDetailResponse'];
