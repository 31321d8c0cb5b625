// What providers post to `{PUBLIC_BASE_URL}/channels/callbacks/{providerId}` (§17): status reports
// of our messages and messages contacts send us. Nothing changes unless the provider's signature
// under the account's own credentials verifies over the exact URL and body; then each status is
// recorded through MessageService, and the STOP and START keywords move the number's consent.
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ProviderAccounts } from '../channels/provider-accounts';
import type { InboundProviderMessage, ProviderCallback } from '../channels/provider-adapter';
import { ProviderRegistry } from '../channels/provider-registry';
import { Clock } from '../common/clock';
import { isUuid } from '../common/ids';
import { normalisePhone } from '../contacts/phone-number';
import { inTransaction } from '../database/transaction';
import { ForbiddenError, NotFoundError } from '../errors/domain-errors';
import { Events } from '../events/events.service';
import { ChannelRecordsRepository } from './channel-records.repository';
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
    private readonly records: ChannelRecordsRepository,
    private readonly events: Events,
    private readonly clock: Clock,
  ) {}

  /** 404 for an account we do not have, 403 for a signature that does not verify. */
  async receive(providerId: string, callback: ProviderCallback): Promise<CallbackReply> {
    const organizationId = isUuid(providerId)
      ? await this.accounts.organizationOf(providerId)
      : null;
    const sending = organizationId && (await this.accounts.forSending(organizationId, providerId));
    if (!organizationId || !sending) throw new NotFoundError('Channel provider');
    const { record, account } = sending;
    const adapter = this.registry.adapterFor(record.channel, record.provider);
    if (!adapter) throw new NotFoundError('Channel provider');
    if (!adapter.verifySignature(account, callback)) {
      this.logger.warn({ msg: 'provider callback refused: bad signature', providerId });
      throw new ForbiddenError('The callback signature does not verify');
    }
    const at = this.clock.now();
    let recorded = 0;
    for (const update of adapter.parseStatus(callback)) {
      if (await this.messages.recordStatus(organizationId, providerId, update, at)) recorded += 1;
    }
    for (const inbound of adapter.parseInbound(callback)) {
      await this.inbound(organizationId, record.channel, inbound, at);
    }
    this.logger.debug({ msg: 'provider callback', providerId, recorded });
    return adapter.callbackReply ?? { contentType: 'application/json', body: '{}' };
  }

  /** An inbound text: STOP and START change the number's consent; anything else is left alone. */
  private async inbound(
    organizationId: string,
    channel: string,
    message: InboundProviderMessage,
    at: Date,
  ): Promise<void> {
    if (message.kind !== 'message') return;
    const keyword = consentKeyword(message.text);
    const phone = normalisePhone(message.from);
    if (channel !== 'sms' || !keyword || !phone) return;
    const changed = await inTransaction(this.ds, (em) =>
      keyword === 'stop'
        ? this.records.optOut(em, organizationId, phone, at)
        : this.records.optIn(em, organizationId, phone, at),
    );
    if (changed) this.events.wake();
    this.logger.log({ msg: `sms ${keyword} keyword`, organizationId, records: changed });
  }
}
