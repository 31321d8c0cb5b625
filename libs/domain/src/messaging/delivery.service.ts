// Delivers one message (§8): claims it, skips suppressed recipients, sends to the due ones over
// pooled SMTP, and records every recipient's outcome in one place (recordOutcomes).
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { SendMailOptions } from 'nodemailer';
import { Clock } from '../common/clock';
import type { OrgId } from '../common/org-id';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { SUPPRESSED_EMAIL_STATUSES } from '../contacts/contact-channels.entity';
import { ContactEmailService } from '../contacts/contact-email.service';
import { normaliseEmail } from '../crypto/field-encryption';
import { SendingIdentities } from '../sending-domains/sending-identity';
import type { Mailbox } from './address';
import {
  AttemptStatus,
  classifyAttempt,
  cleanSmtpMessage,
  isHardBounce,
  nextRetryAt,
  OPEN,
  summariseRecipients,
} from './delivery-policy';
import { ChannelDeliveryService } from './channel-delivery.service';
import { EmailDispatcher } from './email-dispatcher';
import { MessageService } from './message.service';
import type {
  AttemptRecord,
  ClaimedEmail as ClaimedMessage,
  ClaimedRecipient,
  MessageStatus,
  RecipientState,
} from './message.types';
import { SmtpOutbound, SmtpRecipientResult } from './smtp-outbound';
import { TrackingService } from './tracking/tracking.service';
import { UnsubscribeLinks } from '../unsubscribe/unsubscribe-links';

export interface DeliveryRun {
  messageId: string;
  status: MessageStatus;
  attempts: number;
  nextAttemptAt: Date | null;
}

function mailbox(m: Mailbox) {
  return m.name ? { name: m.name, address: m.email } : m.email;
}

@Injectable()
export class DeliveryService {
  private readonly logger = new Logger(DeliveryService.name);

  constructor(
    private readonly messages: MessageService,
    private readonly contactEmails: ContactEmailService,
    private readonly outbound: SmtpOutbound,
    private readonly dispatcher: EmailDispatcher,
    private readonly tracking: TrackingService,
    private readonly unsubscribeLinks: UnsubscribeLinks,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly identities: SendingIdentities,
    private readonly channels: ChannelDeliveryService,
  ) {}

  /**
   * One delivery run of a message: every recipient due now is attempted once. Null when the
   * message is not due or another worker holds it (a duplicate or early job: nothing to do).
   */
  async deliver(organizationId: OrgId, messageId: string): Promise<DeliveryRun | null> {
    const claimedAt = this.clock.now();
    const message = await this.messages.claim(
      organizationId,
      messageId,
      claimedAt,
      this.config.deliveryLeaseMs,
    );
    if (!message) return null;
    if (message.channel !== 'email') {
      // Beyond email: one recipient through the message's provider account (§17).
      const run = await this.channels.deliver(message, claimedAt).catch(async (err: unknown) => {
        await this.messages.releaseLease(organizationId, message.id).catch(() => undefined);
        throw err;
      });
      return run && { messageId: message.id, ...run };
    }
    try {
      const due = message.recipients.filter(
        (r) =>
          OPEN.includes(r.status) &&
          (!r.nextAttemptAt || r.nextAttemptAt.getTime() <= claimedAt.getTime()),
      );
      const suppressed = await this.suppressedAmong(message, due);
      const sendable = due.filter((r) => !suppressed.has(normaliseEmail(r.email)));
      const results = await this.send(message, sendable);
      return await this.recordOutcomes(message, due, suppressed, results);
    } catch (err) {
      await this.messages.releaseLease(organizationId, message.id).catch(() => undefined);
      throw err;
    }
  }

  /**
   * Due recipients whose ContactEmail must not be sent to. The claim already joined the
   * ContactEmails on the current blind index; during a key rotation older rows may carry another
   * index, so then the addresses are looked up under every key as well.
   */
  private async suppressedAmong(
    message: ClaimedMessage,
    due: ClaimedRecipient[],
  ): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const r of due) {
      if (r.contactStatus && SUPPRESSED_EMAIL_STATUSES.includes(r.contactStatus as never)) {
        out.set(normaliseEmail(r.email), r.contactStatus);
      }
    }
    if (due.length && this.contactEmails.rotating()) {
      const more = await this.contactEmails.suppressed(
        message.organizationId,
        due.map((r) => r.email),
      );
      for (const [email, status] of more) out.set(email, status);
    }
    return out;
  }

  private baseMail(message: ClaimedMessage): SendMailOptions {
    const c = message.content;
    // Relayed over SMTP: the message goes out byte for byte as it was submitted.
    if (message.raw) return { raw: message.raw };
    return {
      from: mailbox(c.from),
      to: c.to.map(mailbox),
      cc: c.cc.length ? c.cc.map(mailbox) : undefined,
      replyTo: c.replyTo.length ? c.replyTo.map(mailbox) : undefined,
      subject: c.subject,
      html: c.html,
      text: c.text,
      headers: c.headers,
      attachments: c.attachments.map((a) => ({
        filename: a.filename,
        content: a.content,
        encoding: 'base64',
        contentType: a.contentType,
      })),
      messageId: message.messageId,
      date: message.createdAt,
    };
  }

  /** SMTP results by recipient index. Tracked HTML differs per recipient: one transaction each. */
  private async send(
    message: ClaimedMessage,
    recipients: RecipientState[],
  ): Promise<Map<number, SmtpRecipientResult>> {
    const out = new Map<number, SmtpRecipientResult>();
    if (!recipients.length) return out;
    message = this.unsubscribeLinks.apply(message);
    // DKIM (under a verified domain) and a VERP envelope sender per recipient (§13).
    const identity = await this.identities.forMessage(
      message.organizationId,
      message.id,
      message.content.from.email,
    );
    const mail = { ...this.baseMail(message), dkim: identity.dkim };
    const tracked =
      (message.trackOpens || message.trackClicks) && !!message.content.html && !message.raw;
    const trackable = tracked
      ? await this.tracking.prepare(message.content.html!, {
          organizationId: message.organizationId,
          messageId: message.id,
          clicks: message.trackClicks,
        })
      : null;
    if (!trackable) {
      // One transaction per recipient: each has its own envelope sender.
      await Promise.all(
        recipients.map(async (r) => {
          const [result] = await this.handOff(mail, identity.envelopeFrom(r.idx), [r.email]);
          out.set(r.idx, result);
        }),
      );
      return out;
    }
    // One recipient's HTML after the other (each yields the event loop as it goes): a body of
    // megabytes times 50 recipients must not hold it. The sends run side by side meanwhile.
    const sends: Promise<void>[] = [];
    for (const r of recipients) {
      const html = await this.tracking.personalise(trackable, {
        organizationId: message.organizationId,
        messageId: message.id,
        recipientIndex: r.idx,
        opens: message.trackOpens,
        clicks: message.trackClicks,
      });
      const sent = this.handOff({ ...mail, html }, identity.envelopeFrom(r.idx), [r.email]).then(
        ([result]) => {
          out.set(r.idx, result);
        },
      );
      // Awaited below with the others; until then a failure must not count as unhandled.
      sent.catch(() => undefined);
      sends.push(sent);
    }
    await Promise.all(sends);
    return out;
  }

  /**
   * The SMTP hand-off, the one place a built message leaves for SMTP: its MIME options (or its
   * raw bytes, for a relayed message) and the envelope of one transaction. The envelope sender is
   * the message's From address. Signing (DKIM) and the envelope sender (VERP) apply here.
   */
  private handOff(
    mail: SendMailOptions,
    from: string,
    recipients: string[],
  ): Promise<SmtpRecipientResult[]> {
    return this.outbound.send(mail, { from, to: recipients });
  }

  /**
   * The one place a delivery outcome is decided and recorded: attempt rows, recipient states,
   * bounce bookkeeping on the ContactEmail, the message status, the webhook event of each
   * attempt (one transaction: an event exists exactly when its attempt is recorded), and the
   * follow-up job.
   */
  private async recordOutcomes(
    message: ClaimedMessage,
    due: RecipientState[],
    suppressed: Map<string, string>,
    results: Map<number, SmtpRecipientResult>,
  ): Promise<DeliveryRun> {
    const now = this.clock.now();
    const attempts: AttemptRecord[] = [];
    const changed: RecipientState[] = [];
    const bounces: { email: string; hard: boolean }[] = [];

    for (const r of due) {
      const firstAttemptAt = r.firstAttemptAt ?? now;
      let status: AttemptStatus;
      let next: Date | null = null;
      let code: number | null = null;
      let text: string | null = null;
      let mxHost: string | null = null;
      let outboundIp: string | null = null;
      const suppressedAs = suppressed.get(normaliseEmail(r.email));
      if (suppressedAs) {
        status = 'suppressed';
        text = `Not sent: the address is ${suppressedAs}`;
      } else {
        const res = results.get(r.idx)!;
        ({ code, mxHost, outboundIp } = res);
        text = cleanSmtpMessage(res.message);
        const kind = classifyAttempt(code, res.refused === true);
        if (kind === 'deferred') {
          next = nextRetryAt(
            firstAttemptAt,
            now,
            r.retryCount,
            this.config.deliveryRetryBaseMs,
            this.config.deliveryRetryMaxAgeMs,
          );
          status = next ? 'deferred' : 'failed';
        } else {
          status = kind;
          if (kind === 'bounced') bounces.push({ email: r.email, hard: isHardBounce(code, text) });
        }
      }
      attempts.push({
        recipientIdx: r.idx,
        status,
        smtpCode: code,
        smtpMessage: text,
        mxHost,
        outboundIp,
        retryCount: r.retryCount,
        attemptedAt: now,
      });
      changed.push({
        ...r,
        status,
        retryCount: r.retryCount + 1,
        nextAttemptAt: next,
        firstAttemptAt,
      });
    }

    const byIdx = new Map(changed.map((c) => [c.idx, c]));
    const states = message.recipients.map((r) => byIdx.get(r.idx) ?? r);
    const outcome = summariseRecipients(states, now, attempts.length > 0);
    const seq = await this.messages.record({
      message,
      attempts,
      recipients: changed,
      outcome,
      bounces,
      at: now,
    });

    this.logger.debug({
      msg: 'delivery run recorded',
      messageId: message.id,
      status: outcome.status,
      attempts: attempts.length,
    });

    if (outcome.nextAttemptAt) {
      await this.dispatcher.enqueue(
        message.organizationId,
        message.id,
        seq,
        outcome.nextAttemptAt.getTime() - this.clock.now().getTime(),
      );
    }
    return {
      messageId: message.id,
      status: outcome.status,
      attempts: attempts.length,
      nextAttemptAt: outcome.nextAttemptAt,
    };
  }
}
