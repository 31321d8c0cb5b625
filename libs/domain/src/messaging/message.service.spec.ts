// The message log's writes with their events: each change and its events in one transaction,
// grouped by organization (every statement carries its organization), the webhook dispatchers
// woken after the commit; a claim that fails is its own claimer's error only; a provider's status
// report raises the event its status calls for.
import type { DataSource, EntityManager } from 'typeorm';
import type { StatusUpdate } from '../channels/provider-adapter';
import { asOrgId } from '../common/org-id';
import type { Events, NewEvent } from '../events/events.service';
import type { MessageReport, ProviderReported } from './message-attempts';
import type { MessageAttemptsService } from './message-attempts.service';
import type { MessageLogRepository } from './message-log.repository';
import { MessageService } from './message.service';
import type { MessageRepository } from './message.repository';
import type { NewMessage } from './message.types';
import type { ProviderStatusRepository } from './provider-status.repository';

const ORG_A = asOrgId('00000000-0000-4000-8000-000000000001');
const ORG_B = asOrgId('00000000-0000-4000-8000-000000000002');
const AT = new Date('2031-05-01T12:00:00.000Z');
const PROVIDER = '00000000-0000-4000-8000-0000000000a1';

/** Everything the service did, in order: transactions, repository calls, events, wake-ups. */
type Step = [string, ...unknown[]];

function setup(
  opts: {
    claim?: (organizationId: string, ids: string[]) => unknown[];
    found?: ProviderReported | null;
    eventRef?: unknown;
  } = {},
) {
  const steps: Step[] = [];
  const em = { tx: true } as unknown as EntityManager;
  let open = false;
  const ds = {
    transaction: async (work: (em: EntityManager) => Promise<unknown>) => {
      steps.push(['begin']);
      open = true;
      try {
        return await work(em);
      } finally {
        open = false;
        steps.push(['commit']);
      }
    },
  };
  const inTx = (name: string, ...args: unknown[]) => {
    if (!open) throw new Error(`${name} outside a transaction`);
    steps.push([name, ...args]);
  };
  let rows = 0;
  const messages = {
    insert: jest.fn(async (e: EntityManager, organizationId: string, group: NewMessage[]) => {
      expect(e).toBe(em);
      inTx(
        'insert',
        organizationId,
        group.map((m) => m.jobId),
      );
      return group.map(() => `row-${++rows}`);
    }),
    claim: jest.fn(async (organizationId: string, calls: { id: string; until: Date }[]) => {
      steps.push(['claim', organizationId, calls.map((c) => c.id)]);
      const answer = opts.claim?.(
        organizationId,
        calls.map((c) => c.id),
      );
      return answer ?? calls.map((c) => ({ id: c.id, organizationId, until: c.until }));
    }),
    releaseLease: jest.fn(async (organizationId: string, id: string) => {
      steps.push(['release', organizationId, id]);
    }),
  };
  const events = {
    emit: jest.fn(async (e: EntityManager, organizationId: string, list: NewEvent[]) => {
      expect(e).toBe(em);
      inTx(
        'emit',
        organizationId,
        list.map((ev) => ev.type),
      );
    }),
    wake: jest.fn(() => steps.push(['wake'])),
  };
  const statuses = {
    find: jest.fn(async (_e: EntityManager, organizationId: string, providerId: string) => {
      inTx('find', organizationId, providerId);
      return opts.found ?? null;
    }),
  };
  const attempts = {
    recordReport: jest.fn(
      async (_e: EntityManager, organizationId: string, report: MessageReport) => {
        inTx(
          'recordReport',
          organizationId,
          report.attempt.status,
          report.events.map((ev) => ev.type),
        );
        return { moved: true };
      },
    ),
  };
  const log = { eventRef: jest.fn(async () => opts.eventRef ?? null) };
  const service = new MessageService(
    ds as unknown as DataSource,
    messages as unknown as MessageRepository,
    log as unknown as MessageLogRepository,
    attempts as unknown as MessageAttemptsService,
    statuses as unknown as ProviderStatusRepository,
    events as unknown as Events,
  );
  return { service, steps, events, messages, attempts, log };
}

const message = (organizationId: string, jobId: string, extra: Partial<NewMessage> = {}) =>
  ({
    channel: 'email',
    organizationId,
    jobId,
    messageId: `<${jobId}@acme.test>`,
    source: 'api',
    senderAddress: 'news@acme.test',
    campaignId: null,
    contactId: null,
    tags: [],
    trackOpens: false,
    trackClicks: false,
    content: {},
    recipients: [
      { kind: 'to', email: 'a@example.test' },
      { kind: 'cc', email: 'b@example.test' },
    ],
    createdAt: AT,
    ...extra,
  }) as NewMessage;

describe('MessageService.create', () => {
  it('commits concurrent messages in one transaction, one insert per organization, then wakes', async () => {
    const { service, steps } = setup();
    const ids = await Promise.all([
      service.create(message(ORG_A, 'job_1')),
      service.create(message(ORG_B, 'job_2')),
      service.create(message(ORG_A, 'job_3')),
    ]);
    expect(steps).toEqual([
      ['begin'],
      ['insert', ORG_A, ['job_1', 'job_3']],
      ['emit', ORG_A, ['email.sent', 'email.sent', 'email.sent', 'email.sent']],
      ['insert', ORG_B, ['job_2']],
      ['emit', ORG_B, ['email.sent', 'email.sent']],
      ['commit'],
      ['wake'],
    ]);
    // Each caller gets its own row.
    expect(ids).toEqual(['row-1', 'row-3', 'row-2']);
  });

  it('raises email.sent per recipient of an email with its source, and none for a channel message', async () => {
    const { service, events } = setup();
    await service.create(message(ORG_A, 'job_1', { source: 'smtp' }));
    await service.create(
      message(ORG_A, 'job_2', { channel: 'sms', recipients: [{ kind: 'to', email: '+1415' }] }),
    );
    const [first, second] = events.emit.mock.calls.map((c) => c[2]);
    expect(first.map((e) => e.data)).toEqual([
      expect.objectContaining({ recipient: 'a@example.test', recipientType: 'to', source: 'smtp' }),
      expect.objectContaining({ recipient: 'b@example.test', recipientType: 'cc', source: 'smtp' }),
    ]);
    expect(first.every((e) => e.occurredAt === AT)).toBe(true);
    expect(second).toEqual([]);
  });
});

describe('MessageService.claim', () => {
  it("asks for the lease until now + the lease length, for the message's organization", async () => {
    const { service, messages } = setup();
    const claimed = await service.claim(ORG_A, 'm1', AT, 90_000);
    expect(messages.claim).toHaveBeenCalledWith(ORG_A, [
      { organizationId: ORG_A, id: 'm1', now: AT, until: new Date(AT.getTime() + 90_000) },
    ]);
    expect(claimed).toMatchObject({ id: 'm1' });
  });

  it("keeps one organization's failed statement from failing another's claims", async () => {
    const { service, steps } = setup({
      claim: (org, ids) => {
        if (org === ORG_A && (ids.length > 1 || ids[0] === 'bad')) throw new Error('boom');
        return undefined as unknown as unknown[];
      },
    });
    const results = await Promise.all(
      [
        service.claim(ORG_A, 'good', AT, 90_000),
        service.claim(ORG_A, 'bad', AT, 90_000),
        service.claim(ORG_B, 'other', AT, 90_000),
      ].map((p) =>
        p.then(
          (m) => (m as { id: string }).id,
          (e: Error) => e.message,
        ),
      ),
    );
    expect(results).toEqual(['good', 'boom', 'other']);
    // The failed group is tried again one claim at a time; the other organization's stands.
    expect(steps.filter((s) => s[0] === 'claim')).toEqual([
      ['claim', ORG_A, ['good', 'bad']],
      ['claim', ORG_B, ['other']],
      ['claim', ORG_A, ['good']],
      ['claim', ORG_A, ['bad']],
    ]);
  });

  it('throws an unreadable message to its claimer', async () => {
    const unreadable = new Error('No decryption key with id k9');
    const { service } = setup({ claim: () => [unreadable] });
    await expect(service.claim(ORG_A, 'm1', AT, 90_000)).rejects.toBe(unreadable);
  });

  it('gives a lease back for the organization', async () => {
    const { service, steps } = setup();
    await service.releaseLease(ORG_B, 'm9');
    expect(steps).toEqual([['release', ORG_B, 'm9']]);
  });
});

describe('MessageService.recordStatus', () => {
  const found = (status: ProviderReported['status'] = 'sent'): ProviderReported => ({
    messageId: 'm1',
    recipientIdx: 0,
    status,
    retryCount: 1,
    ref: {
      jobId: 'job_1',
      channel: 'whatsapp',
      campaignId: null,
      contactId: null,
      tags: [],
      recipient: '+14155550100',
    },
  });
  const update = (status: StatusUpdate['status'], extra: Partial<StatusUpdate> = {}) => ({
    providerMessageId: 'wamid.1',
    status,
    ...extra,
  });

  it('records nothing and raises nothing for a message the provider account did not send', async () => {
    const { service, steps } = setup({ found: null });
    expect(await service.recordStatus(ORG_A, PROVIDER, update('delivered'), AT)).toBeNull();
    expect(steps).toEqual([['begin'], ['find', ORG_A, PROVIDER], ['commit'], ['wake']]);
  });

  it('records a delivery as a report with its message.delivered event, in the transaction', async () => {
    const { service, steps, attempts } = setup({ found: found() });
    expect(await service.recordStatus(ORG_A, PROVIDER, update('delivered'), AT)).toEqual({
      messageId: 'm1',
      recipientIdx: 0,
    });
    expect(steps).toEqual([
      ['begin'],
      ['find', ORG_A, PROVIDER],
      ['recordReport', ORG_A, 'delivered', ['message.delivered']],
      ['commit'],
      ['wake'],
    ]);
    expect(attempts.recordReport.mock.calls[0][2]).toMatchObject({
      messageId: 'm1',
      recipientIdx: 0,
      attempt: { status: 'delivered', retryCount: 0, attemptedAt: AT },
      movesFrom: ['pending', 'deferred', 'sent'],
      bounces: [],
      recordEffect: null,
    });
  });

  it('records a read receipt as delivered and raises message.read', async () => {
    const { service, steps, attempts } = setup({ found: found() });
    await service.recordStatus(ORG_A, PROVIDER, update('read'), AT);
    expect(steps).toContainEqual([
      'recordReport',
      ORG_A,
      'delivered',
      ['message.delivered', 'message.read'],
    ]);
    expect(attempts.recordReport.mock.calls[0][2].events[1].data).toMatchObject({
      jobId: 'job_1',
      status: 'read',
      providerMessageId: 'wamid.1',
      timestamp: AT.toISOString(),
    });
  });

  it('raises only message.read for a read receipt after the delivery was recorded', async () => {
    const { service, steps, attempts } = setup({ found: found('delivered') });
    expect(await service.recordStatus(ORG_A, PROVIDER, update('read'), AT)).not.toBeNull();
    expect(steps).toContainEqual(['emit', ORG_A, ['message.read']]);
    expect(attempts.recordReport).not.toHaveBeenCalled();
  });

  it('answers null for a repeat that changed nothing', async () => {
    const { service, events, attempts } = setup({ found: found('delivered') });
    expect(await service.recordStatus(ORG_A, PROVIDER, update('delivered'), AT)).toBeNull();
    expect(events.emit).not.toHaveBeenCalled();
    expect(attempts.recordReport).not.toHaveBeenCalled();
  });

  it("marks the recipient's record invalid on a bounce, or as the report says", async () => {
    const bounce = setup({ found: found() });
    await bounce.service.recordStatus(ORG_A, PROVIDER, update('bounced'), AT);
    expect(bounce.attempts.recordReport.mock.calls[0][2].recordEffect).toEqual({
      channel: 'whatsapp',
      address: '+14155550100',
      effect: 'invalid',
      at: AT,
    });
    expect(bounce.steps).toContainEqual(['recordReport', ORG_A, 'bounced', ['message.failed']]);

    const blocked = setup({ found: found() });
    await blocked.service.recordStatus(
      ORG_A,
      PROVIDER,
      update('failed', { addressEffect: 'blocked' }),
      AT,
    );
    expect(blocked.attempts.recordReport.mock.calls[0][2].recordEffect).toMatchObject({
      effect: 'blocked',
    });

    const delivered = setup({ found: found() });
    await delivered.service.recordStatus(ORG_A, PROVIDER, update('delivered'), AT);
    expect(delivered.attempts.recordReport.mock.calls[0][2].recordEffect).toBeNull();
  });
});

describe('MessageService.engaged', () => {
  const engagement = {
    type: 'clicked' as const,
    url: 'https://acme.test/spring',
    userAgent: 'UA',
    remoteIp: '192.0.2.1',
    occurredAt: AT,
  };

  it("stores the click's event for the organization of the message", async () => {
    const ref = {
      jobId: 'job_1',
      messageId: '<job_1@acme.test>',
      campaignId: null,
      contactId: null,
      tags: ['spring'],
      recipient: { email: 'a@example.test', kind: 'to' },
    };
    const { service, events, log, steps } = setup({ eventRef: ref });
    await service.engaged(ORG_B, 'm1', 0, engagement);
    expect(log.eventRef).toHaveBeenCalledWith(ORG_B, 'm1', 0);
    expect(steps).toEqual([['begin'], ['emit', ORG_B, ['email.clicked']], ['commit'], ['wake']]);
    expect(events.emit.mock.calls[0][2][0].data).toMatchObject({
      url: 'https://acme.test/spring',
      recipient: 'a@example.test',
      tags: ['spring'],
    });
  });

  it('stores nothing for a message that is gone', async () => {
    const { service, steps } = setup({ eventRef: null });
    await service.engaged(ORG_A, 'gone', 0, engagement);
    expect(steps).toEqual([]);
  });
});
