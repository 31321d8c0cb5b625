// One email delivery run, on a fixed clock: only due recipients are attempted, suppressed ones are
// recorded without SMTP, each SMTP answer decides its recipient (delivered, deferred by the
// backoff, bounced with its bounce counted, failed), the run is recorded once and its next run
// queued for the message's organization; a failed run gives the lease back.
import { Logger } from '@nestjs/common';
import type { SendMailOptions } from 'nodemailer';
import { Clock } from '../common/clock';
import { asOrgId } from '../common/org-id';
import type { AppConfig } from '../config/app-config';
import type { ContactEmailService } from '../contacts/contact-email.service';
import type { SendingIdentities } from '../sending-domains/sending-identity';
import type { UnsubscribeLinks } from '../unsubscribe/unsubscribe-links';
import type { ChannelDeliveryService } from './channel-delivery.service';
import { DeliveryService } from './delivery.service';
import type { EmailDispatcher } from './email-dispatcher';
import type { MessageService } from './message.service';
import type { ClaimedEmail, ClaimedMessage, ClaimedRecipient, RunRecord } from './message.types';
import type { SmtpOutbound, SmtpRecipientResult } from './smtp-outbound';
import type { TrackingService } from './tracking/tracking.service';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const NOW = new Date('2031-05-01T12:00:00.000Z');
const at = (ms: number) => new Date(NOW.getTime() + ms);
const BASE_MS = 60_000;
const LEASE_MS = 300_000;

class FixedClock extends Clock {
  now(): Date {
    return new Date(NOW.getTime());
  }
}

const recipient = (idx: number, email: string, extra: Partial<ClaimedRecipient> = {}) =>
  ({
    idx,
    kind: 'to',
    email,
    status: 'pending',
    retryCount: 0,
    nextAttemptAt: null,
    firstAttemptAt: null,
    contactStatus: null,
    ...extra,
  }) as ClaimedRecipient;

const email = (
  recipients: ClaimedRecipient[],
  extra: Partial<ClaimedEmail> = {},
): ClaimedEmail => ({
  id: 'm1',
  organizationId: ORG,
  jobId: 'job_1',
  messageId: '<job_1@acme.test>',
  senderAddress: 'news@acme.test',
  campaignId: null,
  contactId: null,
  tags: [],
  trackOpens: false,
  trackClicks: false,
  createdAt: NOW,
  channel: 'email',
  content: {
    v: 1,
    from: { email: 'news@acme.test', name: 'News' },
    to: recipients.map((r) => ({ email: r.email })),
    cc: [],
    bcc: [],
    replyTo: [],
    subject: 'Hello',
    text: 'Hi',
    headers: {},
    attachments: [],
  },
  recipients,
  ...extra,
});

/** An SMTP answer per address: a code and its words, or none at all (connection refused). */
type Answer = [number | null, string] | 'refused';

function setup(
  message: ClaimedMessage | null,
  answers: Record<string, Answer> = {},
  opts: { rotating?: Map<string, string>; recordFails?: boolean } = {},
) {
  const runs: RunRecord[] = [];
  const envelopes: { from: string; to: string[]; mail: SendMailOptions }[] = [];
  const messages = {
    claim: jest.fn(async () => message),
    record: jest.fn(async (run: RunRecord) => {
      if (opts.recordFails) throw new Error('connection terminated');
      runs.push(run);
      return 3;
    }),
    releaseLease: jest.fn(async () => undefined),
  };
  const contactEmails = {
    rotating: jest.fn(() => opts.rotating !== undefined),
    suppressed: jest.fn(async () => opts.rotating ?? new Map()),
  };
  const outbound = {
    send: jest.fn(async (mail: SendMailOptions, envelope: { from: string; to: string[] }) => {
      envelopes.push({ ...envelope, mail });
      return envelope.to.map((to): SmtpRecipientResult => {
        const a = answers[to] ?? [250, '250 2.0.0 ok'];
        if (a === 'refused') {
          return {
            email: to,
            code: null,
            message: 'refused',
            mxHost: null,
            outboundIp: null,
            refused: true,
          };
        }
        return {
          email: to,
          code: a[0],
          message: a[1],
          mxHost: 'mx.example.test',
          outboundIp: '192.0.2.9',
        };
      });
    }),
  };
  const dispatcher = { enqueue: jest.fn(async () => undefined) };
  const tracking = {
    prepare: jest.fn(async (html: string) => ({ html })),
    personalise: jest.fn(
      async (_t: unknown, t: { recipientIndex: number }) => `html for ${t.recipientIndex}`,
    ),
  };
  const unsubscribeLinks = { apply: jest.fn(<M>(m: M) => m) };
  const identities = {
    forMessage: jest.fn(async () => ({
      dkim: { domainName: 'acme.test' },
      envelopeFrom: (idx: number) => `bounce+${idx}@bounces.acme.test`,
    })),
  };
  const channels = {
    deliver: jest.fn(async () => ({ status: 'sent', attempts: 1, nextAttemptAt: null })),
  };
  const config = {
    deliveryLeaseMs: LEASE_MS,
    deliveryRetryBaseMs: BASE_MS,
    deliveryRetryMaxAgeMs: 3 * 86_400_000,
  } as AppConfig;
  const service = new DeliveryService(
    messages as unknown as MessageService,
    contactEmails as unknown as ContactEmailService,
    outbound as unknown as SmtpOutbound,
    dispatcher as unknown as EmailDispatcher,
    tracking as unknown as TrackingService,
    unsubscribeLinks as unknown as UnsubscribeLinks,
    new FixedClock(),
    config,
    identities as unknown as SendingIdentities,
    channels as unknown as ChannelDeliveryService,
  );
  return { service, runs, envelopes, messages, dispatcher, channels, contactEmails, tracking };
}

beforeAll(() => Logger.overrideLogger(false));

describe('DeliveryService.deliver', () => {
  it("claims the organization's message at now, and does nothing when it is not due", async () => {
    const { service, messages, envelopes } = setup(null);
    expect(await service.deliver(ORG, 'm1')).toBeNull();
    expect(messages.claim).toHaveBeenCalledWith(ORG, 'm1', NOW, LEASE_MS);
    expect(envelopes).toEqual([]);
  });

  it('sends each due recipient its own transaction, signed, from its own envelope sender', async () => {
    const msg = email([recipient(0, 'a@example.test'), recipient(1, 'b@example.test')]);
    const { service, envelopes, runs, dispatcher } = setup(msg);
    const run = await service.deliver(ORG, 'm1');
    expect(run).toEqual({ messageId: 'm1', status: 'delivered', attempts: 2, nextAttemptAt: null });
    expect(envelopes.map((e) => [e.from, e.to])).toEqual([
      ['bounce+0@bounces.acme.test', ['a@example.test']],
      ['bounce+1@bounces.acme.test', ['b@example.test']],
    ]);
    expect(envelopes[0].mail).toMatchObject({
      from: { name: 'News', address: 'news@acme.test' },
      subject: 'Hello',
      messageId: '<job_1@acme.test>',
      dkim: { domainName: 'acme.test' },
    });
    expect(runs).toHaveLength(1);
    expect(
      runs[0].attempts.map((a) => [a.recipientIdx, a.status, a.smtpCode, a.attemptedAt]),
    ).toEqual([
      [0, 'delivered', 250, NOW],
      [1, 'delivered', 250, NOW],
    ]);
    expect(runs[0].outcome).toEqual({ status: 'delivered', nextAttemptAt: null, completedAt: NOW });
    expect(dispatcher.enqueue).not.toHaveBeenCalled();
  });

  it('attempts only recipients that are open and due', async () => {
    const msg = email([
      recipient(0, 'done@example.test', {
        status: 'delivered',
        retryCount: 1,
        firstAttemptAt: at(-1),
      }),
      recipient(1, 'later@example.test', {
        status: 'deferred',
        retryCount: 1,
        nextAttemptAt: at(5000),
        firstAttemptAt: at(-1),
      }),
      recipient(2, 'due@example.test', {
        status: 'deferred',
        retryCount: 1,
        nextAttemptAt: NOW,
        firstAttemptAt: at(-1),
      }),
    ]);
    const { service, envelopes, runs, dispatcher } = setup(msg);
    const run = await service.deliver(ORG, 'm1');
    expect(envelopes.map((e) => e.to)).toEqual([['due@example.test']]);
    expect(runs[0].recipients.map((r) => r.idx)).toEqual([2]);
    // The recipient still waiting keeps the message open until its own time.
    expect(run).toMatchObject({ status: 'deferred', nextAttemptAt: at(5000) });
    expect(dispatcher.enqueue).toHaveBeenCalledWith(ORG, 'm1', 3, 5000);
  });

  it('defers a 4xx by the backoff of its attempt and queues the next run', async () => {
    const msg = email([recipient(0, 'grey@example.test')]);
    const { service, runs, dispatcher } = setup(msg, {
      'grey@example.test': [451, '451 4.7.1 Greylisted, try again later'],
    });
    const run = await service.deliver(ORG, 'm1');
    expect(run).toEqual({
      messageId: 'm1',
      status: 'deferred',
      attempts: 1,
      nextAttemptAt: at(BASE_MS),
    });
    expect(runs[0].recipients[0]).toMatchObject({
      status: 'deferred',
      retryCount: 1,
      nextAttemptAt: at(BASE_MS),
      firstAttemptAt: NOW,
    });
    expect(runs[0].attempts[0].smtpMessage).toBe('451 4.7.1 Greylisted, try again later');
    expect(dispatcher.enqueue).toHaveBeenCalledWith(ORG, 'm1', 3, BASE_MS);
  });

  it('fails a 4xx once the retry age is spent, and a refused domain at once', async () => {
    const old = at(-3 * 86_400_000);
    const msg = email([
      recipient(0, 'grey@example.test', { status: 'deferred', retryCount: 8, firstAttemptAt: old }),
      recipient(1, 'null-mx@example.test'),
    ]);
    const { service, runs } = setup(msg, {
      'grey@example.test': [421, '421 try later'],
      'null-mx@example.test': 'refused',
    });
    const run = await service.deliver(ORG, 'm1');
    expect(runs[0].attempts.map((a) => a.status)).toEqual(['failed', 'failed']);
    expect(run).toMatchObject({ status: 'failed', nextAttemptAt: null });
  });

  it('bounces a 5xx and counts it on the ContactEmail, hard for an unknown user', async () => {
    const msg = email([recipient(0, 'gone@example.test'), recipient(1, 'full@example.test')]);
    const { service, runs } = setup(msg, {
      'gone@example.test': [550, '550 5.1.1 No such user'],
      'full@example.test': [552, '552 5.2.2 Mailbox full'],
    });
    const run = await service.deliver(ORG, 'm1');
    expect(runs[0].bounces).toEqual([
      { email: 'gone@example.test', hard: true },
      { email: 'full@example.test', hard: false },
    ]);
    expect(run?.status).toBe('bounced');
  });

  it('records a suppressed address without sending to it', async () => {
    const msg = email([
      recipient(0, 'Complainer@example.test', { contactStatus: 'complained' }),
      recipient(1, 'ok@example.test'),
    ]);
    const { service, envelopes, runs } = setup(msg);
    const run = await service.deliver(ORG, 'm1');
    expect(envelopes.map((e) => e.to)).toEqual([['ok@example.test']]);
    expect(runs[0].attempts[0]).toMatchObject({
      recipientIdx: 0,
      status: 'suppressed',
      smtpCode: null,
      smtpMessage: 'Not sent: the address is complained',
    });
    expect(run?.status).toBe('partially_delivered');
  });

  it('looks suppressions up under every key during a key rotation, for the organization', async () => {
    const msg = email([recipient(0, 'old@example.test'), recipient(1, 'ok@example.test')]);
    const { service, envelopes, contactEmails } = setup(
      msg,
      {},
      {
        rotating: new Map([['old@example.test', 'bounced']]),
      },
    );
    await service.deliver(ORG, 'm1');
    expect(contactEmails.suppressed).toHaveBeenCalledWith(ORG, [
      'old@example.test',
      'ok@example.test',
    ]);
    expect(envelopes.map((e) => e.to)).toEqual([['ok@example.test']]);
  });

  it('personalises tracked HTML per recipient', async () => {
    const msg = email([recipient(0, 'a@example.test'), recipient(1, 'b@example.test')], {
      trackOpens: true,
    });
    msg.content.html = '<p>Hi</p>';
    const { service, envelopes, tracking } = setup(msg);
    await service.deliver(ORG, 'm1');
    expect(tracking.prepare).toHaveBeenCalledWith('<p>Hi</p>', {
      organizationId: ORG,
      messageId: 'm1',
      clicks: false,
    });
    expect(envelopes.map((e) => [e.to[0], e.mail.html])).toEqual([
      ['a@example.test', 'html for 0'],
      ['b@example.test', 'html for 1'],
    ]);
  });

  it('gives the lease back when the run fails before it is recorded', async () => {
    const { service, messages } = setup(
      email([recipient(0, 'a@example.test')]),
      {},
      { recordFails: true },
    );
    await expect(service.deliver(ORG, 'm1')).rejects.toThrow('connection terminated');
    expect(messages.releaseLease).toHaveBeenCalledWith(ORG, 'm1');
  });

  it('hands a message beyond email to the channel delivery with the claim time', async () => {
    const sms = {
      ...email([recipient(0, '+14155550100')]),
      channel: 'sms',
    } as unknown as ClaimedMessage;
    const { service, channels, envelopes } = setup(sms);
    expect(await service.deliver(ORG, 'm1')).toEqual({
      messageId: 'm1',
      status: 'sent',
      attempts: 1,
      nextAttemptAt: null,
    });
    expect(channels.deliver).toHaveBeenCalledWith(sms, NOW);
    expect(envelopes).toEqual([]);
  });
});
