// Unsubscribing (§14) with a fake repository, lists, events and engagement: a token's target, the
// lists left, the contact.unsubscribed events of a first unsubscribe and of a repeat, and the
// engagement event noted once, whose loss never fails the unsubscribe.
import { Logger } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from '../common/clock';
import { asOrgId } from '../common/org-id';
import type { ContactListsService } from '../contacts/contact-lists.service';
import type { Events, NewEvent } from '../events/events.service';
import type { EngagementService } from '../messaging/engagement/engagement.service';
import type { UnsubscribeRepository, UnsubscribeTarget } from './unsubscribe.repository';
import { UnsubscribeService, unsubscribedEvents } from './unsubscribe.service';
import { UnsubscribeTokens } from './unsubscribe-token';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const CONTACT = '00000000-0000-4000-8000-0000000000c1';
const LIST = '00000000-0000-4000-8000-0000000000a1';
const OTHER_LIST = '00000000-0000-4000-8000-0000000000a2';
const MESSAGE = '00000000-0000-4000-8000-0000000000e1';
const JOB = 'job_01HZY3J7Q8ZK4W6V2N5R9T0ABC';
const NOW = new Date('2030-06-01T12:00:00Z');
const tokens = new UnsubscribeTokens([Buffer.alloc(32, 5)]);
const TOKEN = tokens.sign(JOB)!;

function target(fields: Partial<UnsubscribeTarget> = {}): UnsubscribeTarget {
  return {
    organizationId: ORG,
    jobId: JOB,
    messageId: MESSAGE,
    contactId: CONTACT,
    listId: LIST,
    ...fields,
  };
}

function setup(opts: { target?: UnsubscribeTarget | null; first?: boolean; left?: string[] } = {}) {
  const em = { name: 'transaction' } as unknown as EntityManager;
  const order: string[] = [];
  const ds = {
    transaction: jest.fn(async (work: (em: EntityManager) => Promise<unknown>) => {
      const out = await work(em);
      order.push('commit');
      return out;
    }),
  } as unknown as DataSource;
  const repository = {
    resolve: jest.fn(async (_jobId: string) =>
      opts.target === undefined ? target() : opts.target,
    ),
    record: jest.fn(async (..._args: unknown[]) => opts.first ?? true),
  };
  const lists = {
    unsubscribeIn: jest.fn(async (..._args: unknown[]) => opts.left ?? [LIST]),
  };
  const events = {
    emit: jest.fn(async (_em: EntityManager, _org: string, _events: NewEvent[]) => undefined),
    wake: jest.fn(() => order.push('wake')),
  };
  const engagement = { record: jest.fn(async (_org: string, _e: unknown) => undefined) };
  const clock: Clock = { now: () => NOW };
  const service = new UnsubscribeService(
    ds,
    tokens,
    repository as unknown as UnsubscribeRepository,
    lists as unknown as ContactListsService,
    events as unknown as Events,
    engagement as unknown as EngagementService,
    clock,
  );
  return { service, repository, lists, events, engagement, em, order };
}

beforeAll(() => Logger.overrideLogger(false));
afterAll(() => Logger.overrideLogger(true));

describe('unsubscribedEvents', () => {
  it('is one contact.unsubscribed event per list left, with the reason', () => {
    expect(unsubscribedEvents(CONTACT, [LIST, null], 'complaint')).toEqual([
      {
        type: 'contact.unsubscribed',
        data: { contactId: CONTACT, contactListId: LIST, reason: 'complaint' },
      },
      {
        type: 'contact.unsubscribed',
        data: { contactId: CONTACT, contactListId: null, reason: 'complaint' },
      },
    ]);
    expect(unsubscribedEvents(CONTACT, [], 'one-click')).toEqual([]);
  });
});

describe('UnsubscribeService.target', () => {
  it('resolves the job a genuine token names, in any letter case', async () => {
    const { service, repository } = setup();
    await expect(service.target(TOKEN.toUpperCase())).resolves.toEqual(target());
    expect(repository.resolve).toHaveBeenCalledWith(JOB);
  });

  it('answers 404 for a forged token without a lookup, and for a job that names nothing', async () => {
    const { service, repository } = setup({ target: null });
    const forged = TOKEN.slice(0, -1) + (TOKEN.endsWith('0') ? '1' : '0');
    await expect(service.target(forged)).rejects.toMatchObject({ code: 'E_ROW_NOT_FOUND' });
    expect(repository.resolve).not.toHaveBeenCalled();
    await expect(service.target(TOKEN)).rejects.toMatchObject({ code: 'E_ROW_NOT_FOUND' });
  });
});

describe('UnsubscribeService.unsubscribe', () => {
  it("leaves the campaign's list, announces it and notes the engagement once", async () => {
    const { service, repository, lists, events, engagement, em, order } = setup();
    const result = await service.unsubscribe(TOKEN, 'one-click', {
      userAgent: 'Mail/1.0',
      remoteIp: '192.0.2.7',
    });
    expect(result).toEqual({ organizationId: ORG, changed: true, listIds: [LIST] });
    expect(repository.record).toHaveBeenCalledWith(em, ORG, target(), 'one-click', NOW);
    expect(lists.unsubscribeIn).toHaveBeenCalledWith(em, ORG, CONTACT, LIST, 'one-click', NOW);
    expect(events.emit).toHaveBeenCalledWith(em, ORG, [
      {
        type: 'contact.unsubscribed',
        data: { contactId: CONTACT, contactListId: LIST, reason: 'one-click' },
      },
    ]);
    expect(order).toEqual(['commit', 'wake']);
    expect(engagement.record).toHaveBeenCalledWith(ORG, {
      messageId: MESSAGE,
      recipientIndex: 0,
      type: 'unsubscribed',
      userAgent: 'Mail/1.0',
      remoteIp: '192.0.2.7',
      occurredAt: NOW,
    });
  });

  it('a repeat changes nothing, announces nothing and notes no engagement', async () => {
    const { service, events, engagement } = setup({ first: false, left: [] });
    await expect(service.unsubscribe(TOKEN, 'mailto')).resolves.toEqual({
      organizationId: ORG,
      changed: false,
      listIds: [],
    });
    expect(events.emit).toHaveBeenCalledWith(expect.anything(), ORG, []);
    expect(engagement.record).not.toHaveBeenCalled();
  });

  it('a repeat that finds the contact subscribed again unsubscribes it again', async () => {
    const { service, events, engagement } = setup({ first: false, left: [LIST] });
    await expect(service.unsubscribe(TOKEN, 'one-click')).resolves.toMatchObject({
      changed: true,
      listIds: [LIST],
    });
    expect(events.emit.mock.calls[0][2]).toHaveLength(1);
    expect(engagement.record).not.toHaveBeenCalled();
  });

  it('announces a first unsubscribe from every list even when the contact was on none', async () => {
    const { service, lists, events } = setup({ target: target({ listId: null }), left: [] });
    await expect(service.unsubscribe(TOKEN, 'one-click')).resolves.toMatchObject({
      changed: true,
      listIds: [],
    });
    expect(lists.unsubscribeIn).toHaveBeenCalledWith(
      expect.anything(),
      ORG,
      CONTACT,
      null,
      'one-click',
      NOW,
    );
    expect(events.emit.mock.calls[0][2]).toEqual([
      {
        type: 'contact.unsubscribed',
        data: { contactId: CONTACT, contactListId: null, reason: 'one-click' },
      },
    ]);
  });

  it("announces nothing when a list campaign's contact had already left that list", async () => {
    const { service, events } = setup({ left: [] });
    await expect(service.unsubscribe(TOKEN, 'one-click')).resolves.toEqual({
      organizationId: ORG,
      changed: true,
      listIds: [],
    });
    expect(events.emit).toHaveBeenCalledWith(expect.anything(), ORG, []);
  });

  it('announces each list left when unsubscribing from every list', async () => {
    const { service, events } = setup({
      target: target({ listId: null }),
      left: [LIST, OTHER_LIST],
    });
    await service.unsubscribe(TOKEN, 'one-click');
    expect(
      events.emit.mock.calls[0][2].map((e) => (e.data as { contactListId: string }).contactListId),
    ).toEqual([LIST, OTHER_LIST]);
  });

  it('notes no engagement for a message the log has purged', async () => {
    const { service, engagement } = setup({ target: target({ messageId: null }) });
    await expect(service.unsubscribe(TOKEN, 'one-click')).resolves.toMatchObject({ changed: true });
    expect(engagement.record).not.toHaveBeenCalled();
  });

  it('unsubscribes even when the engagement store is down', async () => {
    const { service, engagement } = setup();
    const warn = jest.spyOn((service as unknown as { logger: Logger }).logger, 'warn');
    engagement.record.mockRejectedValueOnce(new Error('engagement database unavailable'));
    await expect(service.unsubscribe(TOKEN, 'one-click')).resolves.toMatchObject({
      changed: true,
      listIds: [LIST],
    });
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ type: 'unsubscribed', err: 'engagement database unavailable' }),
    );
  });
});

describe('UnsubscribeService.unsubscribeEverywhere', () => {
  it("leaves every list for a complaint in the caller's transaction", async () => {
    const { service, lists, events, em } = setup({ left: [LIST, OTHER_LIST] });
    const at = new Date('2030-06-02T00:00:00Z');
    await expect(service.unsubscribeEverywhere(em, ORG, CONTACT, at)).resolves.toEqual([
      LIST,
      OTHER_LIST,
    ]);
    expect(lists.unsubscribeIn).toHaveBeenCalledWith(em, ORG, CONTACT, null, 'complaint', at);
    expect(events.emit).toHaveBeenCalledWith(
      em,
      ORG,
      unsubscribedEvents(CONTACT, [LIST, OTHER_LIST], 'complaint'),
    );
    expect(events.wake).not.toHaveBeenCalled();
  });
});
