// One delivery run of a message beyond email, on a fixed clock: consent first, then the account,
// its throughput and the adapter; the provider's answer decides the attempt and the next run
// (a 429's Retry-After pauses the account and bounds the deferral), recorded through
// MessageService.record and queued for the message's organization.
import { Logger } from '@nestjs/common';
import type { ChannelProviderService } from '../channels/channel-provider.service';
import type { ProviderAccounts } from '../channels/provider-accounts';
import type { ProviderMessage, SendOutcome } from '../channels/provider-adapter';
import type { ProviderRegistry } from '../channels/provider-registry';
import type { ProviderThrottle } from '../channels/provider-throttle';
import { Clock } from '../common/clock';
import { asOrgId } from '../common/org-id';
import type { AppConfig } from '../config/app-config';
import { configureFieldEncryption, FieldCipher } from '../crypto/field-encryption';
import { ChannelDeliveryService } from './channel-delivery.service';
import type { EmailDispatcher } from './email-dispatcher';
import type { MessageService } from './message.service';
import type { ClaimedChannelMessage, ClaimedRecipient, RunRecord } from './message.types';
import type { ShortLinks } from './tracking/short-links';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const ACCOUNT = '00000000-0000-4000-8000-0000000000a1';
const NOW = new Date('2031-05-01T12:00:00.000Z');
const at = (ms: number) => new Date(NOW.getTime() + ms);
const BASE_MS = 60_000;

class FixedClock extends Clock {
  now(): Date {
    return new Date(NOW.getTime());
  }
}

const recipient = (extra: Partial<ClaimedRecipient> = {}): ClaimedRecipient => ({
  idx: 0,
  kind: 'to',
  email: '+14155550100',
  status: 'pending',
  retryCount: 0,
  nextAttemptAt: null,
  firstAttemptAt: null,
  contactStatus: null,
  ...extra,
});

const claimed = (
  r: Partial<ClaimedRecipient> = {},
  extra: Partial<ClaimedChannelMessage> = {},
): ClaimedChannelMessage => ({
  id: 'm1',
  organizationId: ORG,
  jobId: 'job_1',
  messageId: '<job_1@sms>',
  senderAddress: '+14155550000',
  campaignId: null,
  contactId: null,
  tags: [],
  trackOpens: false,
  trackClicks: false,
  createdAt: NOW,
  channel: 'sms',
  providerId: ACCOUNT,
  content: { kind: 'sms', text: 'Hi, see https://acme.test/spring' },
  recipients: [recipient(r)],
  ...extra,
});

function setup(
  opts: {
    outcome?: SendOutcome;
    waits?: number[];
    account?: { status?: string; consecutiveAuthFailures?: number } | null;
    perAddressPerSecond?: number;
    hasAdapter?: boolean;
  } = {},
) {
  const runs: RunRecord[] = [];
  const sent: ProviderMessage[] = [];
  const messages = {
    record: jest.fn(async (run: RunRecord) => {
      runs.push(run);
      return 7;
    }),
    releaseLease: jest.fn(async () => undefined),
  };
  const accounts = {
    forSending: jest.fn(async () =>
      opts.account === null
        ? null
        : {
            record: {
              id: ACCOUNT,
              channel: 'sms',
              provider: 'twilio',
              status: 'active',
              consecutiveAuthFailures: 0,
              maxPerSecond: 10,
              ...opts.account,
            },
            account: { id: ACCOUNT },
          },
    ),
  };
  const adapter = {
    perAddressPerSecond: opts.perAddressPerSecond,
    send: jest.fn(async (_a: unknown, m: ProviderMessage) => {
      sent.push(m);
      return opts.outcome ?? { kind: 'accepted', providerMessageId: 'SM1', status: 'sent' };
    }),
  };
  const registry = { adapterFor: jest.fn(() => (opts.hasAdapter === false ? null : adapter)) };
  const providers = { recordOutcome: jest.fn(async () => undefined) };
  const waits = [...(opts.waits ?? [])];
  const throttle = {
    take: jest.fn(async () => waits.shift() ?? 0),
    pause: jest.fn(async () => undefined),
  };
  const dispatcher = { enqueue: jest.fn(async () => undefined) };
  const shortLinks = {
    rewrite: jest.fn(async (text: string) => text.replace('https://acme.test/spring', 'SHORT')),
  };
  const config = {
    publicBaseUrl: 'https://mail.acme.test',
    deliveryRetryBaseMs: BASE_MS,
    deliveryRetryMaxAgeMs: 3 * 86_400_000,
  } as AppConfig;
  const service = new ChannelDeliveryService(
    messages as unknown as MessageService,
    accounts as unknown as ProviderAccounts,
    providers as unknown as ChannelProviderService,
    registry as unknown as ProviderRegistry,
    throttle as unknown as ProviderThrottle,
    dispatcher as unknown as EmailDispatcher,
    shortLinks as unknown as ShortLinks,
    new FixedClock(),
    config,
  );
  return { service, runs, sent, messages, throttle, dispatcher, providers, accounts, shortLinks };
}

beforeAll(() => {
  Logger.overrideLogger(false);
  configureFieldEncryption(new FieldCipher(Buffer.alloc(32, 7)));
});

describe('ChannelDeliveryService: what is not sent', () => {
  it('gives the lease back and sends nothing for a recipient not due yet, or already done', async () => {
    for (const r of [{ status: 'deferred', nextAttemptAt: at(1) }, { status: 'sent' }] as const) {
      const { service, messages, sent, runs } = setup();
      expect(await service.deliver(claimed(r), NOW)).toBeNull();
      expect(messages.releaseLease).toHaveBeenCalledWith(ORG, 'm1');
      expect(sent).toEqual([]);
      expect(runs).toEqual([]);
    }
  });

  it('records a recipient whose record forbids the channel suppressed, without the provider', async () => {
    const { service, sent, runs, accounts } = setup();
    const run = await service.deliver(claimed({ contactStatus: 'opted_out' }), NOW);
    expect(run).toEqual({ status: 'suppressed', attempts: 1, nextAttemptAt: null });
    expect(sent).toEqual([]);
    expect(accounts.forSending).not.toHaveBeenCalled();
    expect(runs[0].attempts[0]).toMatchObject({
      status: 'suppressed',
      smtpMessage: 'Not sent: the sms record is opted_out',
      attemptedAt: NOW,
    });
    expect(runs[0].outcome).toEqual({
      status: 'suppressed',
      nextAttemptAt: null,
      completedAt: NOW,
    });
  });

  it('fails a message without a provider account, or with a disabled one', async () => {
    const none = setup({ account: null });
    expect(await none.service.deliver(claimed(), NOW)).toMatchObject({ status: 'failed' });
    expect(none.runs[0].attempts[0].smtpMessage).toBe('Not sent: no provider');
    const disabled = setup({ account: { status: 'disabled' } });
    await disabled.service.deliver(claimed(), NOW);
    expect(disabled.runs[0].attempts[0].smtpMessage).toBe(
      'Not sent: the provider account is disabled',
    );
    expect(disabled.sent).toEqual([]);
  });
});

describe('ChannelDeliveryService: the provider decides', () => {
  it('records an accepted message sent, with its provider id and segments, the record used', async () => {
    const { service, runs, dispatcher, sent } = setup({
      outcome: { kind: 'accepted', providerMessageId: 'SM9', status: 'sent', segments: 2 },
    });
    const run = await service.deliver(claimed(), NOW);
    expect(run).toEqual({ status: 'sent', attempts: 1, nextAttemptAt: null });
    expect(sent[0]).toMatchObject({
      reference: 'job_1',
      to: '+14155550100',
      statusCallbackUrl: `https://mail.acme.test/channels/callbacks/${ACCOUNT}`,
      content: { text: 'Hi, see https://acme.test/spring' },
    });
    const r = runs[0];
    expect(r.attempts[0]).toMatchObject({ status: 'sent', segments: 2, retryCount: 0 });
    expect(r.recipients[0]).toMatchObject({
      status: 'sent',
      retryCount: 1,
      firstAttemptAt: NOW,
      providerMessageId: 'SM9',
    });
    expect(r.recordEffect).toBe('used');
    // Sent is not final (its receipt is to come) and needs no further run.
    expect(r.outcome).toEqual({ status: 'sent', nextAttemptAt: null, completedAt: null });
    expect(dispatcher.enqueue).not.toHaveBeenCalled();
  });

  it('bounces a permanent refusal that names the address, fails one that does not', async () => {
    const bounce = setup({
      outcome: {
        kind: 'rejected',
        permanent: true,
        addressEffect: 'invalid',
        code: '21211',
        message: 'bad number',
      },
    });
    await bounce.service.deliver(claimed(), NOW);
    expect(bounce.runs[0].outcome).toEqual({
      status: 'bounced',
      nextAttemptAt: null,
      completedAt: NOW,
    });
    expect(bounce.runs[0].recordEffect).toBe('invalid');
    expect(bounce.runs[0].attempts[0]).toMatchObject({
      providerCode: '21211',
      smtpMessage: 'bad number',
    });

    const fail = setup({
      outcome: { kind: 'rejected', permanent: true, code: '30007', message: 'filtered' },
    });
    await fail.service.deliver(claimed(), NOW);
    expect(fail.runs[0].outcome.status).toBe('failed');
    expect(fail.runs[0].recordEffect).toBeUndefined();
  });

  it('defers a transient refusal by the backoff of its attempt and queues the next run', async () => {
    const { service, runs, dispatcher } = setup({
      outcome: { kind: 'unavailable', message: 'connect ECONNREFUSED' },
    });
    const first = at(-10 * 60_000);
    const run = await service.deliver(
      claimed({ status: 'deferred', retryCount: 2, firstAttemptAt: first }),
      NOW,
    );
    // base × 2^retryCount after this attempt.
    expect(run).toEqual({ status: 'deferred', attempts: 1, nextAttemptAt: at(4 * BASE_MS) });
    expect(runs[0].recipients[0]).toMatchObject({ retryCount: 3, firstAttemptAt: first });
    expect(dispatcher.enqueue).toHaveBeenCalledWith(ORG, 'm1', 7, 4 * BASE_MS);
  });

  it('fails a transient refusal once the retry age is spent', async () => {
    const { service, dispatcher } = setup({ outcome: { kind: 'unavailable', message: 'down' } });
    const run = await service.deliver(
      claimed({ status: 'deferred', retryCount: 9, firstAttemptAt: at(-3 * 86_400_000) }),
      NOW,
    );
    expect(run).toEqual({ status: 'failed', attempts: 1, nextAttemptAt: null });
    expect(dispatcher.enqueue).not.toHaveBeenCalled();
  });
});

describe("ChannelDeliveryService: a 429's Retry-After", () => {
  it('pauses the account for the Retry-After and defers the message to its end', async () => {
    const { service, throttle, runs, dispatcher } = setup({
      outcome: { kind: 'throttled', retryAfterMs: 1000 },
    });
    const run = await service.deliver(claimed(), NOW);
    expect(throttle.pause).toHaveBeenCalledWith(ACCOUNT, 1000);
    expect(run).toEqual({ status: 'deferred', attempts: 1, nextAttemptAt: at(1000) });
    expect(runs[0].attempts[0]).toMatchObject({ status: 'deferred', providerCode: '429' });
    expect(dispatcher.enqueue).toHaveBeenCalledWith(ORG, 'm1', 7, 1000);
  });

  it('keeps the backoff when it ends first: the paused account holds the send meanwhile', async () => {
    const { service, throttle } = setup({
      outcome: { kind: 'throttled', retryAfterMs: 10 * BASE_MS },
    });
    const run = await service.deliver(claimed(), NOW);
    expect(run?.nextAttemptAt).toEqual(at(BASE_MS));
    expect(throttle.pause).toHaveBeenCalledWith(ACCOUNT, 10 * BASE_MS);
  });

  it('holds a message while the account is paused for longer than a second: no attempt, no send', async () => {
    const { service, sent, runs, dispatcher } = setup({ waits: [2500] });
    const run = await service.deliver(claimed(), NOW);
    expect(sent).toEqual([]);
    expect(run).toEqual({ status: 'queued', attempts: 0, nextAttemptAt: at(2500) });
    expect(runs[0].attempts).toEqual([]);
    expect(runs[0].recipients[0]).toMatchObject({ status: 'pending', retryCount: 0 });
    expect(dispatcher.enqueue).toHaveBeenCalledWith(ORG, 'm1', 7, 2500);

    const again = setup({ waits: [2500] });
    const held = await again.service.deliver(
      claimed({ status: 'deferred', retryCount: 1, firstAttemptAt: at(-1000) }),
      NOW,
    );
    expect(held?.status).toBe('deferred');
  });

  it('waits out a short wait for the budget, asks again, then sends', async () => {
    const { service, sent, throttle } = setup({ waits: [1, 0] });
    await service.deliver(claimed(), NOW);
    expect(throttle.take).toHaveBeenCalledTimes(2);
    expect(sent).toHaveLength(1);
  });

  it("spaces sends to one address by the address's blind index when the provider limits it", async () => {
    const { service, throttle } = setup({ perAddressPerSecond: 0.8 });
    await service.deliver(claimed(), NOW);
    const [providerId, perSecond, address] = throttle.take.mock.calls[0] as unknown[];
    expect([providerId, perSecond]).toEqual([ACCOUNT, 10]);
    expect(address).toEqual({ index: expect.stringMatching(/^[0-9a-f]{64}$/), perSecond: 0.8 });
    expect((address as { index: string }).index).not.toContain('4155550100');
  });
});

describe("ChannelDeliveryService: the account's health and tracked links", () => {
  it("records a refusal of the account's credentials, and the first good send after refusals", async () => {
    const refused = setup({ outcome: { kind: 'unauthorized', message: 'bad token' } });
    const run = await refused.service.deliver(claimed(), NOW);
    expect(refused.providers.recordOutcome).toHaveBeenCalledWith(ORG, ACCOUNT, {
      kind: 'unauthorized',
      message: 'bad token',
    });
    expect(run?.status).toBe('deferred');

    const healthy = setup();
    await healthy.service.deliver(claimed(), NOW);
    expect(healthy.providers.recordOutcome).not.toHaveBeenCalled();

    const recovering = setup({ account: { consecutiveAuthFailures: 2 } });
    await recovering.service.deliver(claimed(), NOW);
    expect(recovering.providers.recordOutcome).toHaveBeenCalledTimes(1);
  });

  it("sends a text's links as short tracked links of the recipient when clicks are tracked", async () => {
    const { service, sent, shortLinks } = setup();
    await service.deliver(claimed({}, { trackClicks: true }), NOW);
    expect(shortLinks.rewrite).toHaveBeenCalledWith(
      'Hi, see https://acme.test/spring',
      'https://mail.acme.test',
      { organizationId: ORG, messageId: 'm1', recipientIndex: 0 },
    );
    expect(sent[0].content).toEqual({ text: 'Hi, see SHORT' });
  });
});
