// What providers post to `{PUBLIC_BASE_URL}/channels/callbacks/{providerId}` (§17): status reports
// of our messages and what contacts do towards our numbers and bots. Nothing changes unless the
// provider's signature under the account's own credentials verifies over the exact URL and body;
// then each status is recorded through MessageService (a read receipt also as an `opened`
// engagement), the STOP and START keywords move an SMS number's consent, a Telegram chat that
// opened the bot's deep link is linked to its record, a block marks the record `blocked`, and a
// WhatsApp message opens its number's customer-service window.
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ProviderAccounts } from '../channels/provider-accounts';
import type {
  InboundProviderMessage,
  ProviderAdapter,
  ProviderCallback,
  ProviderChannel,
} from '../channels/provider-adapter';
import { ProviderRegistry } from '../channels/provider-registry';
import { telegramStartPayload } from '../channels/providers/telegram-bot.adapter';
import { TelegramLinkTokens } from '../channels/telegram-link-token';
import { Clock } from '../common/clock';
import { isUuid } from '../common/ids';
import type { OrgId } from '../common/org-id';
import { ChannelFeedbackService } from '../contacts/channel-feedback.service';
import { normalisePhone } from '../contacts/phone-number';
import { inTransaction } from '../database/transaction';
import { ForbiddenError, NotFoundError } from '../errors/domain-errors';
import { Events } from '../events/events.service';
import { EngagementStore } from './engagement/engagement.store';
import { MessageService } from './message.service';

/** The opt-out and opt-in keywords (§17 Consent), matched whole, in any case, trimmed. */
export const STOP_KEYWORDS = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'];
export const START_KEYWORDS = ['START', 'UNSTOP'];

/** What an inbound text asks of its number's consent, if anything. */
export function consentKeyword(text: string): 'stop' | 'start' | null {
  const word = text.trim().toUpperCase();
  if (STOP_KEYWORDS.includes(word)) return 'stop';
  if (START_KEYWORDS.includes(word)) return 'start';
  return null;
}

export interface CallbackReply {
  contentType: string;
  body: string;
}

@Injectable()
export class ChannelCallbackService {
  private readonly logger = new Logger(ChannelCallbackService.name);

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly accounts: ProviderAccounts,
    private readonly registry: ProviderRegistry,
    private readonly messages: MessageService,
    private readonly records: ChannelFeedbackService,
    private readonly engagement: EngagementStore,
    private readonly linkTokens: TelegramLinkTokens,
    private readonly events: Events,
    private readonly clock: Clock,
  ) {}

  /** 404 for an account we do not have, 403 for a signature that does not verify. */
  async receive(providerId: string, callback: ProviderCallback): Promise<CallbackReply> {
    const { organizationId, account, adapter } = await this.accountOf(providerId);
    if (!adapter.verifySignature(account, callback)) {
      this.logger.warn({ msg: 'provider callback refused: bad signature', providerId });
      throw new ForbiddenError('The callback signature does not verify');
    }
    const at = this.clock.now();
    let recorded = 0;
    for (const update of adapter.parseStatus(callback)) {
      const done = await this.messages.recordStatus(organizationId, providerId, update, at);
      if (!done) continue;
      recorded += 1;
      if (update.status === 'read') {
        const { messageId, recipientIdx: recipientIndex } = done;
        await this.engagement
          .record(organizationId, { messageId, recipientIndex, type: 'opened', occurredAt: at })
          .catch((err: Error) =>
            this.logger.warn({ msg: 'read receipt not recorded as engagement', err: err.message }),
          );
      }
    }
    for (const inbound of adapter.parseInbound(callback, account)) {
      await this.inbound(organizationId, providerId, account.channel, inbound, at);
    }
    this.logger.debug({ msg: 'provider callback', providerId, recorded });
    return adapter.callbackReply ?? { contentType: 'application/json', body: '{}' };
  }

  /**
   * A provider's check of the callback URL before it uses it (WhatsApp's `hub.challenge`): the
   * body to answer; 404 for an account we do not have or a provider that makes no such check,
   * 403 when the check's token is not the account's.
   */
  async handshake(providerId: string, query: URLSearchParams): Promise<string> {
    const { account, adapter } = await this.accountOf(providerId);
    if (!adapter.handshake) throw new NotFoundError('Channel provider');
    const answer = adapter.handshake(account, query);
    if (answer === null) throw new ForbiddenError('The verification token does not match');
    return answer;
  }

  private async accountOf(providerId: string) {
    const organizationId = isUuid(providerId)
      ? await this.accounts.organizationOf(providerId)
      : null;
    const sending = organizationId && (await this.accounts.forSending(organizationId, providerId));
    if (!organizationId || !sending) throw new NotFoundError('Channel provider');
    const adapter: ProviderAdapter | null = this.registry.adapterFor(
      sending.record.channel,
      sending.record.provider,
    );
    if (!adapter) throw new NotFoundError('Channel provider');
    // The organization of the account row the callback's URL names.
    return { organizationId, account: sending.account, adapter };
  }

  /** What a contact did towards our number or bot, by channel. */
  private async inbound(
    organizationId: OrgId,
    providerId: string,
    channel: ProviderChannel,
    message: InboundProviderMessage,
    at: Date,
  ): Promise<void> {
    const changed = await inTransaction(this.ds, async (em) => {
      if (channel === 'sms' && message.kind === 'message') {
        const keyword = consentKeyword(message.text);
        const phone = normalisePhone(message.from);
        if (!keyword || !phone) return 0;
        this.logger.log({ msg: `sms ${keyword} keyword`, organizationId });
        return keyword === 'stop'
          ? this.records.optOut(em, organizationId, phone, at)
          : this.records.optIn(em, organizationId, phone, at);
      }
      if (channel === 'whatsapp' && message.kind === 'message') {
        const phone = normalisePhone(message.from);
        return phone ? this.records.seen(em, organizationId, 'whatsapp', phone, at) : 0;
      }
      if (channel !== 'telegram') return 0;
      if (message.kind === 'blocked') {
        await this.records.apply(em, organizationId, {
          channel,
          address: message.from,
          effect: 'blocked',
          at,
        });
        return 1;
      }
      const token = message.kind === 'message' ? telegramStartPayload(message.text) : null;
      const recordId = token && this.linkTokens.verify(token, providerId);
      if (recordId) {
        const linked = await this.records.linkTelegramChat(
          em,
          organizationId,
          recordId,
          message.from,
          at,
        );
        this.logger.log({ msg: 'telegram chat linked', organizationId, linked });
        return linked ? 1 : 0;
      }
      return this.records.seen(
        em,
        organizationId,
        'telegram',
        message.from,
        at,
        message.kind === 'unblocked',
      );
    });
    if (changed) this.events.wake();
  }
}
