// The events of messages beyond email (§17): message.sent when a provider accepts one,
// message.delivered on its receipt, message.read on a read receipt, message.failed when it is
// refused, bounced or never sent.
// Deferrals raise none: the message is still on its way. Payloads carry no content and no secret.
import type { NewEvent } from '../events/events.service';
import type { ProviderChannel } from '../channels/provider-adapter';
import type { AttemptStatus } from './delivery-policy';

/** The message and recipient a channel event is about. */
export interface ChannelEventRef {
  jobId: string;
  channel: ProviderChannel;
  campaignId: string | null;
  contactId: string | null;
  tags: string[];
  /** The channel's own address (a phone number, a device token). */
  recipient: string;
}

export interface ChannelOutcome {
  status: AttemptStatus;
  providerMessageId: string | null;
  /** The provider's own error code and its words, when it gave them. */
  code: string | null;
  description: string | null;
  /** Attempts before this one. */
  retryCount: number;
  at: Date;
}

function eventType(status: AttemptStatus): NewEvent['type'] | null {
  if (status === 'sent') return 'message.sent';
  if (status === 'delivered') return 'message.delivered';
  if (status === 'bounced' || status === 'failed' || status === 'suppressed') {
    return 'message.failed';
  }
  return null;
}

/** message.read: the recipient opened the message (a WhatsApp or iMessage read receipt). */
export function channelReadEvent(
  ref: ChannelEventRef,
  providerMessageId: string,
  at: Date,
): NewEvent {
  return {
    type: 'message.read',
    data: {
      jobId: ref.jobId,
      channel: ref.channel,
      recipient: ref.recipient,
      campaignId: ref.campaignId,
      contactId: ref.contactId,
      tags: ref.tags,
      status: 'read',
      providerMessageId,
      timestamp: at.toISOString(),
    },
    occurredAt: at,
  };
}

/** The event of one recorded attempt or status of a channel message; null for a deferral. */
export function channelOutcomeEvent(ref: ChannelEventRef, o: ChannelOutcome): NewEvent | null {
  const type = eventType(o.status);
  if (!type) return null;
  return {
    type,
    data: {
      jobId: ref.jobId,
      channel: ref.channel,
      recipient: ref.recipient,
      campaignId: ref.campaignId,
      contactId: ref.contactId,
      tags: ref.tags,
      status: o.status,
      providerMessageId: o.providerMessageId,
      code: o.code,
      description: o.description,
      attempt: o.retryCount + 1,
      timestamp: o.at.toISOString(),
    },
    occurredAt: o.at,
  };
}
