import { Logger } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { fixture } from '../../../../test/unsubscribe/support/fixtures';
import { asOrgId } from '../common/org-id';
import type { Clock } from '../common/clock';
import type { ContactEmailService } from '../contacts/contact-email.service';
import { NotFoundError } from '../errors/domain-errors';
import type { Events, NewEvent } from '../events/events.service';
import type {
  FeedbackMessage,
  MessageReference,
  MessageReport,
} from '../messaging/message-attempts';
import type { MessageAttemptsService } from '../messaging/message-attempts.service';
import { VerpTokens } from '../sending-domains/verp';
import { UnsubscribeTokens } from '../unsubscribe/unsubscribe-token';
import type { UnsubscribeService, UnsubscribeTarget } from '../unsubscribe/unsubscribe.service';
import { BounceFeedback } from './bounce-feedback';
import { ComplaintFeedback } from './complaint-feedback';
import type {
  InboundMessageSweeper,
  InboundOutcome,
  LeasedInboundMessage,
} from './inbound-message.sweeper';
import { InboundService } from './inbound.service';

const ORG = asOrgId('6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f');
const NOW = new Date('2025-11-20T15:00:00Z');
const KEYS = [Buffer.alloc(32, 7)];
const EM = { fake: 'em' } as unknown as EntityManager;
const verp = new VerpTokens(KEYS);
const unsubscribeTokens = new UnsubscribeTokens(KEYS);
const JOB = 'job_01JDX3R2F8K7Q0M9V4T6Z5Y8AB';

const MESSAGE: FeedbackMessage = {
  id: '0b5f0b9e-8a47-4c4f-9d6e-2f3b1c0d9e8a',
  organizationId: ORG,
  jobId: JOB,
  messageId: '<01JDX3R2F8K7Q0M9V4T6Z5Y8AB@shop.example>',
  campaignId: null,
  contactId: 'c0ffee00-0000-4000-8000-000000000001',
  tags: ['news'],
  recipients: [
    { idx: 0, kind: 'to', email: 'ann@example.org', status: 'delivered', retryCount: 1 },
    { idx: 1, kind: 'cc', email: 'bob@example.org', status: 'delivered', retryCount: 1 },
  ],
};

const bounceAddress = (recipientIndex: number, messageId = MESSAGE.id) =>
  verp.address({ messageId, recipientIndex }, 'bounces.test');

function setup(opts: { contactAddresses?: string[]; finished?: boolean; failing?: boolean } = {}) {
  const leases: LeasedInboundMessage[] = [];
  const finished: InboundOutcome[] = [];
  const retried: { id: string; retryAt: Date | null }[] = [];
  const reports: MessageReport[] = [];
  const lookups: MessageReference[] = [];
  const complaints: string[] = [];
  const unsubscribedEverywhere: string[] = [];
  const emitted: NewEvent[] = [];
  const engagements: { type: string; recipientIndex: number | undefined }[] = [];
  const inbound = {
    leaseNext: () => Promise.resolve(leases.shift() ?? null),
    finish: (em: EntityManager, id: string, attempts: number, outcome: InboundOutcome) => {
      finished.push(outcome);
      return Promise.resolve(opts.finished ?? true);
    },
    retryLater: (id: string, attempts: number, retryAt: Date | null) => {
      retried.push({ id, retryAt });
      return Promise.resolve();
    },
  };
  const messages = {
    findReferenced: (ref: MessageReference) => {
      lookups.push(ref);
      const hit = 'messageId' in ref ? ref.messageId === MESSAGE.id : ref.jobId === JOB;
      return Promise.resolve(hit ? MESSAGE : null);
    },
    recordReport: (em: EntityManager, org: string, report: MessageReport) => {
      expect(em).toBe(EM);
      expect(org).toBe(ORG);
      if (opts.failing) return Promise.reject(new Error('database went away'));
      reports.push(report);
      return Promise.resolve({ moved: true });
    },
  };
  const contactEmails = {
    addressesOf: (org: string, contactId: string) => {
      expect([org, contactId]).toEqual([ORG, MESSAGE.contactId]);
      return Promise.resolve(opts.contactAddresses ?? []);
    },
    recordComplaint: (org: string, email: string) => {
      complaints.push(email);
      return Promise.resolve({ contactId: MESSAGE.contactId, contactEmailId: 'e1', status: 'x' });
    },
  };
  const unsubscribes = {
    target: (token: string): Promise<UnsubscribeTarget> => {
      const jobId = unsubscribeTokens.verify(token);
      if (!jobId) return Promise.reject(new NotFoundError('Unsubscribe link'));
      return Promise.resolve({
        organizationId: ORG,
        jobId,
        messageId: MESSAGE.id,
        contactId: MESSAGE.contactId!,
        listId: null,
      });
    },
    apply: () => Promise.resolve({ changed: true, listIds: ['l1'], first: true }),
    unsubscribeEverywhere: (em: EntityManager, org: string, contactId: string) => {
      unsubscribedEverywhere.push(contactId);
      return Promise.resolve(['l1', 'l2']);
    },
    noteEngagement: (
      org: string,
      messageId: string,
      type: string,
      at: Date,
      client?: unknown,
      recipientIndex?: number,
    ) => {
      engagements.push({ type, recipientIndex });
      return Promise.resolve();
    },
  };
  const events = {
    emit: (em: EntityManager, org: string, list: NewEvent[]) => {
      emitted.push(...list);
      return Promise.resolve();
    },
    wake: () => undefined,
  };
  const ds = { transaction: (work: (em: EntityManager) => unknown) => work(EM) };
  const clock: Clock = { now: () => NOW };
  const attemptsService = messages as unknown as MessageAttemptsService;
  const service = new InboundService(
    ds as unknown as DataSource,
    inbound as unknown as InboundMessageSweeper,
    attemptsService,
    contactEmails as unknown as ContactEmailService,
    verp,
    unsubscribeTokens,
    unsubscribes as unknown as UnsubscribeService,
    new BounceFeedback(attemptsService),
    new ComplaintFeedback(
      contactEmails as unknown as ContactEmailService,
      unsubscribes as unknown as UnsubscribeService,
      events as unknown as Events,
    ),
    events as unknown as Events,
    clock,
  );
  const receive = (recipients: string[], raw: Buffer) =>
    leases.push({ id: `in-${leases.length}`, kind: 'bounce', recipients, raw, attempts: 1 });
  return {
    service,
    receive,
    finished,
    retried,
    reports,
    lookups,
    complaints,
    unsubscribedEverywhere,
    emitted,
    engagements,
  };
}

// The service logs each message it processes; the assertions below say what it did.
beforeAll(() => Logger.overrideLogger(['error']));

describe('InboundService: bounce reports', () => {
  it('records a hard bounce on the recipient its VERP token names, whatever address the report writes', async () => {
    const t = setup();
    t.receive(
      [bounceAddress(1)],
      fixture('postfix-dsn', { BOUNCE_ADDRESS: bounceAddress(1), RECIPIENT: 'x@elsewhere.test' }),
    );
    expect(await t.service.processDue()).toBe(1);
    expect(t.lookups).toEqual([{ messageId: MESSAGE.id }]);
    expect(t.reports).toHaveLength(1);
    const [r] = t.reports;
    expect(r).toMatchObject({
      messageId: MESSAGE.id,
      recipientIdx: 1,
      attempt: { status: 'bounced', smtpCode: 550, mxHost: 'mx.example.org', retryCount: 1 },
      movesFrom: ['delivered'],
      bounces: [{ email: 'bob@example.org', hard: true }],
      recordEffect: null,
    });
    expect(r.attempt.attemptedAt).toEqual(NOW);
    expect(r.events).toHaveLength(1);
    expect(r.events[0]).toMatchObject({
      type: 'email.bounced',
      data: { recipient: 'bob@example.org', bounceType: 'hard', jobId: JOB },
    });
    expect(t.finished).toEqual([{ outcome: 'bounced', organizationId: ORG }]);
  });

  it('records a delay report as a deferral that moves nothing and counts no bounce', async () => {
    const t = setup();
    t.receive([bounceAddress(0)], fixture('postfix-delayed-dsn'));
    await t.service.processDue();
    expect(t.reports).toHaveLength(1);
    expect(t.reports[0]).toMatchObject({
      recipientIdx: 0,
      attempt: { status: 'deferred' },
      movesFrom: [],
      bounces: [],
    });
    expect(t.reports[0].events[0].type).toBe('email.deferred');
    expect(t.finished).toEqual([{ outcome: 'deferred', organizationId: ORG }]);
  });

  it('changes nothing for a forged token or a message that is not ours', async () => {
    const t = setup();
    const genuine = bounceAddress(0);
    const [local, host] = genuine.split('@');
    const forged = `${local.slice(0, -1)}${local.endsWith('0') ? '1' : '0'}@${host}`;
    t.receive([forged], fixture('postfix-dsn'));
    t.receive([bounceAddress(0, '11111111-2222-4333-8444-555555555555')], fixture('postfix-dsn'));
    expect(await t.service.processDue()).toBe(2);
    expect(t.lookups).toEqual([{ messageId: '11111111-2222-4333-8444-555555555555' }]);
    expect(t.reports).toEqual([]);
    expect(t.finished).toEqual([
      { outcome: 'unmatched', organizationId: null },
      { outcome: 'unmatched', organizationId: null },
    ]);
  });

  it('records one outcome per recipient when several of our addresses name it', async () => {
    const t = setup();
    t.receive([bounceAddress(0), bounceAddress(0).toUpperCase()], fixture('postfix-dsn'));
    await t.service.processDue();
    expect(t.reports).toHaveLength(1);
  });

  it('leaves the message due again, with backoff, when recording fails', async () => {
    const t = setup({ failing: true });
    t.receive([bounceAddress(0)], fixture('postfix-dsn'));
    await t.service.processDue();
    expect(t.finished).toEqual([]);
    expect(t.retried).toEqual([{ id: 'in-0', retryAt: new Date(NOW.getTime() + 30_000) }]);
  });

  it('does not retry a message another worker processed meanwhile', async () => {
    const t = setup({ finished: false });
    t.receive([bounceAddress(0)], fixture('postfix-dsn'));
    await t.service.processDue();
    expect(t.retried).toEqual([]);
  });
});

describe('InboundService: complaints', () => {
  it('marks the address named by the signed Original-Mail-From complained and unsubscribes its contact', async () => {
    const t = setup();
    t.receive(['fbl@bounces.test'], fixture('arf-abuse', { BOUNCE_ADDRESS: bounceAddress(1) }));
    await t.service.processDue();
    expect(t.complaints).toEqual(['bob@example.org']);
    expect(t.unsubscribedEverywhere).toEqual([MESSAGE.contactId]);
    expect(t.reports).toEqual([]);
    expect(t.emitted).toHaveLength(1);
    expect(t.emitted[0]).toMatchObject({
      type: 'email.complained',
      data: { recipient: 'bob@example.org', unsubscribedFrom: ['l1', 'l2'], feedbackType: 'abuse' },
    });
    expect(t.finished).toEqual([{ outcome: 'complained', organizationId: ORG }]);
    // The engagement event follows the commit, on the recipient complained about.
    expect(t.engagements).toEqual([{ type: 'complained', recipientIndex: 1 }]);
  });

  it("by the List-Unsubscribe token takes the recipient whose address is the contact's", async () => {
    const t = setup({ contactAddresses: ['ANN@example.org'] });
    const token = unsubscribeTokens.sign(JOB)!;
    t.receive(
      ['fbl@bounces.test'],
      fixture('arf-abuse', {
        BOUNCE_ADDRESS: 'someone@else.example',
        LIST_UNSUBSCRIBE: `<https://mail.example.com/u/${token}>`,
      }),
    );
    await t.service.processDue();
    expect(t.lookups).toEqual([{ jobId: JOB }]);
    expect(t.complaints).toEqual(['ann@example.org']);
  });

  it('names nobody when the job has several recipients and none is the contact’s', async () => {
    const t = setup({ contactAddresses: [] });
    const token = unsubscribeTokens.sign(JOB)!;
    t.receive(
      ['fbl@bounces.test'],
      fixture('arf-abuse', {
        BOUNCE_ADDRESS: 'someone@else.example',
        LIST_UNSUBSCRIBE: `<https://mail.example.com/u/${token}>`,
      }),
    );
    await t.service.processDue();
    expect(t.complaints).toEqual([]);
    expect(t.finished).toEqual([{ outcome: 'unmatched', organizationId: null }]);
  });
});

describe('InboundService: mailto unsubscribes', () => {
  it('unsubscribes by a genuine token and notes the engagement after the commit', async () => {
    const t = setup();
    const token = unsubscribeTokens.sign(JOB)!;
    t.receive([`unsubscribe+${token}@bounces.test`], Buffer.from('Subject: x\r\n\r\nbye\r\n'));
    t.receive(
      [`unsubscribe+${'0'.repeat(46)}@bounces.test`],
      Buffer.from('Subject: x\r\n\r\nbye\r\n'),
    );
    await t.service.processDue();
    expect(t.finished).toEqual([
      { outcome: 'unsubscribed', organizationId: ORG },
      { outcome: 'unmatched', organizationId: null },
    ]);
    expect(t.engagements).toEqual([{ type: 'unsubscribed', recipientIndex: undefined }]);
  });
});
