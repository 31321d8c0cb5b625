// What a message beyond email carries (§17), as the send path stores it (encrypted, in
// messages.content) and the worker hands it to the provider's adapter; and where each channel's
// addresses live among a contact's records.
import type { BlindIndexKind } from '../contacts/blind-index';
import type { PushPlatform } from '../contacts/contact-channels.entity';
import type {
  ImessageContent,
  ProviderChannel,
  PushContent,
  SmsContent,
  TelegramContent,
  WhatsappContent,
} from './provider-adapter';

export interface SmsMessageContent extends SmsContent {
  kind: 'sms';
}

export interface WhatsappMessageContent extends WhatsappContent {
  kind: 'whatsapp';
}

export interface TelegramMessageContent extends TelegramContent {
  kind: 'telegram';
}

export interface ImessageMessageContent extends ImessageContent {
  kind: 'imessage';
}

export interface PushMessageContent extends PushContent {
  kind: 'push';
  /** The platform of the device token: it decides the payload's shape (APNs or FCM). */
  platform: PushPlatform;
}

export type ChannelContent =
  | SmsMessageContent
  | WhatsappMessageContent
  | TelegramMessageContent
  | ImessageMessageContent
  | PushMessageContent;

/**
 * Each channel's contact records: the table, the column holding the address a message goes to
 * (encrypted) and its blind index. A Telegram record is reachable once its chat is known (the
 * contact opened the bot's deep link); its phone number is not an address on Telegram.
 */
export const CHANNEL_RECORDS: Record<
  ProviderChannel,
  { table: string; address: string; hash: string; kind: BlindIndexKind }
> = {
  sms: { table: 'contact_sms', address: 'phone_number', hash: 'phone_hash', kind: 'phone' },
  whatsapp: {
    table: 'contact_whatsapp',
    address: 'phone_number',
    hash: 'phone_hash',
    kind: 'phone',
  },
  telegram: { table: 'contact_telegram', address: 'chat_id', hash: 'chat_id_hash', kind: 'token' },
  push: {
    table: 'contact_push',
    address: 'device_token',
    hash: 'device_token_hash',
    kind: 'token',
  },
  imessage: {
    table: 'contact_imessage',
    address: 'apple_id',
    hash: 'apple_id_hash',
    kind: 'email',
  },
};

/** The blind index kind of a channel's addresses, the same as its contact records'. */
export function addressIndexKind(channel: ProviderChannel | 'email'): BlindIndexKind {
  return channel === 'email' ? 'email' : CHANNEL_RECORDS[channel].kind;
}

/** Contact record statuses that forbid sending on the channel (§17 Consent). */
export const UNSENDABLE_RECORD_STATUSES: Record<ProviderChannel, readonly string[]> = {
  sms: ['opted_out', 'invalid'],
  whatsapp: ['blocked'],
  telegram: ['blocked', 'inactive'],
  push: ['expired', 'inactive'],
  imessage: ['invalid'],
};
