// What a message beyond email carries (§17), as the send path stores it (encrypted, in
// messages.content) and the worker hands it to the provider's adapter.
import type { BlindIndexKind } from '../contacts/blind-index';
import type { PushPlatform } from '../contacts/contact-channels.entity';
import type { ProviderChannel, PushContent, SmsContent } from './provider-adapter';

export interface SmsMessageContent extends SmsContent {
  kind: 'sms';
}

export interface PushMessageContent extends PushContent {
  kind: 'push';
  /** The platform of the device token: it decides the payload's shape (APNs or FCM). */
  platform: PushPlatform;
}

export type ChannelContent = SmsMessageContent | PushMessageContent;

/** The blind index kind of a channel's addresses, the same as its contact records'. */
export function addressIndexKind(channel: ProviderChannel | 'email'): BlindIndexKind {
  if (channel === 'push') return 'token';
  if (channel === 'email' || channel === 'imessage') return 'email';
  return 'phone';
}

/** Contact record statuses that forbid sending on the channel (§17 Consent). */
export const UNSENDABLE_RECORD_STATUSES: Record<ProviderChannel, readonly string[]> = {
  sms: ['opted_out', 'invalid'],
  whatsapp: ['blocked'],
  telegram: ['blocked', 'inactive'],
  push: ['expired', 'inactive'],
  imessage: ['invalid'],
};
