// The email send path: the payload's rules, the organization's own references (404), the sender
// policy, the subscription and the sending limits (all or nothing, fail closed), then the message
// committed before its delivery is queued.
import { Logger } from '@nestjs/common';
import { decodeTime } from 'ulid';
import { Clock } from '../common/clock';
import { asOrgId } from '../common/org-id';
import {
  NotFoundError,
  ServiceUnavailableError,
  SubscriptionRequiredError,
  ValidationFailedError,
} from '../errors/domain-errors';
import { SendingLimitExceededError, type SendingLimiter } from '../limits/sending-limiter';
import { SenderNotVerifiedError, type SenderPolicy } from '../sending-domains/sender-policy';
import type { Organization } from '../tenancy/organization.entity';
import type { OrganizationCache } from '../tenancy/organization-cache';
import type { EmailDispatcher } from './email-dispatcher';
import type { MessageRepository } from './message.repository';
import type { MessageService } from './message.service';
import type { NewEmailMessage } from './message.types';
import { newMessageUlid, SendService } from './send.service';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const CAMPAIGN = '00000000-0000-4000-8000-0000000000c1';
const CONTACT = '00000000-0000-4000-8000-0000000000d1';
const NOW = new Date('2031-05-01T12:00:00.000Z');

class FixedClock extends Clock {
  now(): Date {
    return new Date(NOW.getTime());
  }
}

const organization = (extra: Partial<Organization> = {}) =>
  ({
    id: ORG,
    plan: 'pro',
    subscriptionStatus: 'active',
    limitPerSecond: 7,
    limitPerMinute: null,
    limitPerHour: null,
    limitPerDay: null,
    limitPerMonth: null,
    ...extra,
  }) as Organization;

function setup(
  opts: {
    org?: Partial<Organization>;
    foreign?: 'campaign' | 'contact' | null;
    limiterError?: Error;
    senderError?: Error;
  } = {},
) {
  /** Every effect, in order, with the organization it was for. */
  const steps: string[] = [];
  const created: NewEmailMessage[] = [];
  const organizations = {
    get: jest.fn(async (id: string) => {
      steps.push(`organization ${id}`);
      return organization(opts.org);
    }),
  };
  const limiter = {
    consume: jest.fn(async (id: string, _usage: unknown, _opts: unknown) => {
      steps.push(`consume ${id}`);
      if (opts.limiterError) throw opts.limiterError;
    }),
  };
  const messages = {
    create: jest.fn(async (m: NewEmailMessage) => {
      steps.push(`create ${m.organizationId}`);
      created.push(m);
      return 'row-1';
    }),
  };
  const references = {
    foreignReference: jest.fn(async (id: string, _refs: unknown) => {
      steps.push(`references ${id}`);
      return opts.foreign ?? null;
    }),
  };
  const dispatcher = {
    enqueueNew: jest.fn(async (id: string, rowId: string) => {
      steps.push(`enqueue ${id} ${rowId}`);
      return true;
    }),
  };
  const senders = {
    assertMaySend: jest.fn(async (id: string, from: string) => {
      steps.push(`sender ${id} ${from}`);
      if (opts.senderError) throw opts.senderError;
    }),
  };
  const service = new SendService(
    organizations as unknown as OrganizationCache,
    limiter as unknown as SendingLimiter,
    messages as unknown as MessageService,
    references as unknown as MessageRepository,
    dispatcher as unknown as EmailDispatcher,
    new FixedClock(),
    senders as unknown as SenderPolicy,
  );
  return { service, steps, created, limiter, references, dispatcher, messages };
}

const email = {
  from: 'News <news@acme.test>',
  to: ['a@example.test', 'b@example.test'],
  subject: 'Hello',
  text: 'Hi',
};

beforeAll(() => Logger.overrideLogger(false));

describe('SendService.send', () => {
  it('checks, admits, commits, then queues, every step for the organization', async () => {
    const { service, steps, created, limiter } = setup();
    const out = await service.send(ORG, email);
    expect(steps).toEqual([
      `references ${ORG}`,
      `sender ${ORG} news@acme.test`,
      `organization ${ORG}`,
      `consume ${ORG}`,
      `create ${ORG}`,
      `enqueue ${ORG} row-1`,
    ]);
    // One request, one unit per recipient, under the organization's own limits over its plan's.
    expect(limiter.consume.mock.calls[0][1]).toEqual({ requests: 1, recipients: 2 });
    expect(limiter.consume.mock.calls[0][2]).toMatchObject({ limits: { perSecond: 7 } });
    const m = created[0];
    expect(out).toEqual({
      jobId: m.jobId,
      messageId: m.messageId,
      recipients: ['a@example.test', 'b@example.test'],
      status: 'queued',
    });
    expect(m).toMatchObject({
      channel: 'email',
      source: 'api',
      senderAddress: 'news@acme.test',
      createdAt: NOW,
      campaignId: null,
      contactId: null,
    });
    const id = m.jobId.slice('job_'.length);
    expect(m.jobId).toMatch(/^job_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(m.messageId).toBe(`<${id}@acme.test>`);
    expect(decodeTime(id)).toBe(NOW.getTime());
  });

  it('refuses an invalid payload with 422 naming the field, before any read or write', async () => {
    const { service, steps } = setup();
    const err = await service
      .send(ORG, { ...email, to: 'not an address' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationFailedError);
    expect((err as ValidationFailedError).errors).toEqual([
      expect.objectContaining({ field: 'to', rule: 'email' }),
    ]);
    expect(steps).toEqual([]);
  });

  it.each([
    ['campaign', 'Campaign not found'],
    ['contact', 'Contact not found'],
  ] as const)("answers 404 for another organization's %s, and sends nothing", async (kind, msg) => {
    const { service, steps, references } = setup({ foreign: kind });
    const err = await service
      .send(ORG, { ...email, campaignId: CAMPAIGN, contactId: CONTACT })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as Error).message).toBe(msg);
    expect(references.foreignReference.mock.calls[0][1]).toMatchObject({
      campaignId: CAMPAIGN,
      contactId: CONTACT,
    });
    expect(steps).toEqual([`references ${ORG}`]);
  });

  it("skips the reference check for a campaign's own fan-out", async () => {
    const { service, references, created } = setup({ foreign: 'campaign' });
    await service.send(ORG, { ...email, campaignId: CAMPAIGN }, 'campaign');
    expect(references.foreignReference).not.toHaveBeenCalled();
    expect(created[0]).toMatchObject({ source: 'campaign', campaignId: CAMPAIGN });
  });

  it('passes the sender policy refusal through, before any limit is consumed', async () => {
    const { service, limiter, created } = setup({
      senderError: new SenderNotVerifiedError('acme.test'),
    });
    await expect(service.send(ORG, email)).rejects.toBeInstanceOf(SenderNotVerifiedError);
    expect(limiter.consume).not.toHaveBeenCalled();
    expect(created).toEqual([]);
  });

  it.each(['canceled', 'past_due'] as const)(
    'refuses an organization whose subscription is %s, without consuming a limit',
    async (subscriptionStatus) => {
      const { service, limiter, created } = setup({ org: { subscriptionStatus } });
      const err = await service.send(ORG, email).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SubscriptionRequiredError);
      expect((err as SubscriptionRequiredError).code).toBe('SUBSCRIPTION_REQUIRED');
      expect(limiter.consume).not.toHaveBeenCalled();
      expect(created).toEqual([]);
    },
  );

  it('passes a limit refusal through as it is (429 with its window), and commits nothing', async () => {
    const refusal = new SendingLimitExceededError('perMinute', 12);
    const { service, created, dispatcher } = setup({ limiterError: refusal });
    await expect(service.send(ORG, email)).rejects.toBe(refusal);
    expect(created).toEqual([]);
    expect(dispatcher.enqueueNew).not.toHaveBeenCalled();
  });

  it('fails closed with 503 when the limit counters cannot be read', async () => {
    const { service, created } = setup({ limiterError: new Error('ECONNREFUSED 127.0.0.1:6379') });
    const err = await service.send(ORG, email).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(err).toMatchObject({ code: 'E_SERVICE_UNAVAILABLE', retryAfter: 5 });
    expect((err as Error).message).not.toContain('6379');
    expect(created).toEqual([]);
  });
});

describe('SendService over SMTP', () => {
  it('admits a relay transaction as one request and one recipient of its organization', async () => {
    const { service, limiter, steps } = setup();
    await service.admitRelayTransaction(ORG);
    expect(steps).toEqual([`organization ${ORG}`, `consume ${ORG}`]);
    expect(limiter.consume.mock.calls[0][1]).toEqual({ requests: 1, recipients: 1 });
  });

  it('refuses a relay transaction of an organization without a subscription', async () => {
    const { service, limiter } = setup({ org: { subscriptionStatus: 'past_due' } });
    await expect(service.admitRelayTransaction(ORG)).rejects.toBeInstanceOf(
      SubscriptionRequiredError,
    );
    expect(limiter.consume).not.toHaveBeenCalled();
  });

  it('stores a submitted message as received, once per envelope recipient, without consuming again', async () => {
    const { service, created, limiter, steps } = setup();
    const raw = Buffer.from('Subject: hi\r\n\r\nbody');
    const out = await service.submitRaw(ORG, {
      raw,
      envelopeFrom: 'relay@acme.test',
      recipients: [' a@example.test', 'A@EXAMPLE.test', '', 'b@example.test '],
      subject: 'hi',
    });
    expect(limiter.consume).not.toHaveBeenCalled();
    expect(steps[0]).toBe(`sender ${ORG} relay@acme.test`);
    expect(out.recipients).toEqual(['a@example.test', 'b@example.test']);
    expect(created[0]).toMatchObject({
      source: 'smtp',
      raw,
      senderAddress: 'relay@acme.test',
      trackOpens: false,
      trackClicks: false,
      recipients: [
        { kind: 'to', email: 'a@example.test' },
        { kind: 'to', email: 'b@example.test' },
      ],
    });
    expect(created[0].content.subject).toBe('hi');
  });
});

describe('newMessageUlid', () => {
  it('carries the time and fresh randomness: two ids of one instant differ', () => {
    const a = newMessageUlid(NOW);
    const b = newMessageUlid(NOW);
    expect(decodeTime(a)).toBe(NOW.getTime());
    expect(decodeTime(b)).toBe(NOW.getTime());
    expect(a).not.toBe(b);
    expect(a.slice(0, 10)).toBe(b.slice(0, 10));
  });
});
