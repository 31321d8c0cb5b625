// The channels of a campaign (§17) as the composer and the detail page use them. Request types come
// from the OpenAPI document. The document declares no body for POST /campaigns/reach nor for
// GET /campaigns/{id}: CampaignReach, ChannelSummary and CampaignDetail read those answers, with the
// channel named by the document's enum, and give way to the generated types when the API declares
// its response classes.
import type { components } from '../../api/schema';
import type { Campaign, ContactList } from '../../api/models';

type Schemas = components['schemas'];
export type CreateCampaignBody = Schemas['CreateCampaignDto'];
export type CampaignContent = Schemas['CampaignContentDto'];
export type CampaignChannel = NonNullable<CreateCampaignBody['channels']>[number];
export type ReachRequest = Schemas['CampaignReachDto'];
export type TelegramParseMode = NonNullable<Schemas['TelegramContentDto']['parseMode']>;

/** A list as the picker reads it: its preferred channels seed the composer's order. */
export type PickerList = ContactList & Pick<Schemas['CreateListDto'], 'preferredChannels'>;

/** Every channel with its label; `satisfies` keeps it in step with the document's enum. */
export const CHANNEL_LABELS = {
  email: 'Email',
  sms: 'SMS',
  whatsapp: 'WhatsApp',
  telegram: 'Telegram',
  imessage: 'iMessage',
  push: 'Push',
} as const satisfies Record<CampaignChannel, string>;

export const ALL_CHANNELS = Object.keys(CHANNEL_LABELS) as CampaignChannel[];

export const channelLabel = (c: string): string =>
  (CHANNEL_LABELS as Record<string, string>)[c] ?? c;

/** POST /campaigns/reach: who each channel of the order would reach now. */
export interface CampaignReach {
  total: number;
  byChannel: Partial<Record<CampaignChannel, number>>;
  unreachable: number;
}

/** GET /campaigns/{id}: one channel's recipients by fan-out status and messages by delivery status. */
export interface ChannelSummary {
  recipients: number;
  pending: number;
  held: number;
  sent: number;
  failed: number;
  delivery: Record<string, number>;
}

export type CampaignDetail = Campaign & {
  channels?: CampaignChannel[];
  content?: CampaignContent;
  unreachableCount?: number;
  byChannel?: Partial<Record<CampaignChannel, ChannelSummary>>;
};
