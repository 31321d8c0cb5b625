// The sweeper re-queues only messages whose job is gone, scanning batch after batch until a short
// one; the retention purge deletes in batches until a short one and deletes the purged messages'
// engagement events (an engagement store that fails does not stop the purge).
import { Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { asOrgId } from '../common/org-id';
import type { EmailDispatcher } from './email-dispatcher';
import type { EngagementSweeper, PurgedMessage } from './engagement/engagement.sweeper';
import { MessageMaintenanceService } from './message-maintenance.service';
import type { MessageSweeper } from './message.sweeper';
import type { Redispatch, SweepCursor } from './message.types';

const NOW = new Date('2031-05-01T12:00:00.000Z');
const ORG_A = asOrgId('00000000-0000-4000-8000-000000000001');
const ORG_B = asOrgId('00000000-0000-4000-8000-000000000002');

class FixedClock extends Clock {
  now(): Date {
    return new Date(NOW.getTime());
  }
}

const row = (n: number, organizationId = ORG_A): Redispatch => ({
  organizationId,
  id: `m${n}`,
  dispatchSeq: n % 3,
});

beforeAll(() => Logger.overrideLogger(false));

describe('MessageMaintenanceService.sweep', () => {
  /** Due messages in scan order; `live` holds the ids whose job is still queued. */
  function setup(due: Redispatch[], live: Set<string>) {
    const scans: { after: SweepCursor | null; graceMs: number; now: Date; batch: number }[] = [];
    const messages = {
      sweepDue: jest.fn(
        async (
          now: Date,
          graceMs: number,
          batch: number,
          after: SweepCursor | null,
          decide: (rows: Redispatch[]) => Promise<Redispatch[]>,
        ) => {
          scans.push({ after, graceMs, now, batch });
          const start = after ? Number(after.id.slice(1)) + 1 : 0;
          const rows = due.slice(start, start + batch);
          const lost = await decide(rows);
          const last = rows.length ? { dueAt: '0', id: rows[rows.length - 1].id } : null;
          return { lost, scanned: rows.length, last };
        },
      ),
    };
    const dispatcher = {
      isLive: jest.fn(async (id: string) => live.has(id)),
      enqueue: jest.fn(async () => undefined),
    };
    const service = new MessageMaintenanceService(
      messages as unknown as MessageSweeper,
      dispatcher as unknown as EmailDispatcher,
      {} as EngagementSweeper,
      new FixedClock(),
    );
    return { service, scans, dispatcher };
  }

  it('re-queues each message whose job is gone in its own organization, with its sequence', async () => {
    const due = [row(0), row(1, ORG_B), row(2), row(3, ORG_B)];
    const { service, dispatcher, scans } = setup(due, new Set(['m0', 'm2']));
    expect(await service.sweep(60_000)).toBe(2);
    expect(dispatcher.enqueue.mock.calls).toEqual([
      [ORG_B, 'm1', 1],
      [ORG_B, 'm3', 0],
    ]);
    expect(scans).toEqual([{ after: null, graceMs: 60_000, now: NOW, batch: 500 }]);
  });

  it('scans on from the last row while a scan is full, and stops at a short one', async () => {
    const due = Array.from({ length: 1100 }, (_, i) => row(i));
    const { service, dispatcher, scans } = setup(due, new Set(due.map((r) => r.id)));
    expect(await service.sweep(1000)).toBe(0);
    expect(scans.map((s) => s.after?.id ?? null)).toEqual([null, 'm499', 'm999']);
    expect(dispatcher.isLive).toHaveBeenCalledTimes(1100);
    expect(dispatcher.enqueue).not.toHaveBeenCalled();
  });
});

describe('MessageMaintenanceService.purgeExpired', () => {
  function setup(batches: PurgedMessage[][], engagementFails = false) {
    const purged: Date[] = [];
    const messages = {
      purgeExpired: jest.fn(async (now: Date, batch: number) => {
        purged.push(now);
        expect(batch).toBe(1000);
        return batches.shift() ?? [];
      }),
    };
    const engagement = {
      deleteForMessages: jest.fn(async (gone: PurgedMessage[]) => {
        if (engagementFails) throw new Error('engagement store down');
        return gone.length;
      }),
    };
    const service = new MessageMaintenanceService(
      messages as unknown as MessageSweeper,
      {} as EmailDispatcher,
      engagement as unknown as EngagementSweeper,
      new FixedClock(),
    );
    return { service, purged, engagement };
  }

  /** `n` purged messages, of both organizations in turn. */
  const ids = (n: number, prefix: string): PurgedMessage[] =>
    Array.from({ length: n }, (_, i) => ({
      organizationId: i % 2 ? ORG_B : ORG_A,
      id: `${prefix}${i}`,
    }));

  it("deletes batch after batch until a short one, and each batch's engagement events", async () => {
    const { service, purged, engagement } = setup([ids(1000, 'a'), ids(1000, 'b'), ids(7, 'c')]);
    expect(await service.purgeExpired()).toBe(2007);
    expect(purged).toEqual([NOW, NOW, NOW]);
    expect(engagement.deleteForMessages.mock.calls.map(([batch]) => batch.length)).toEqual([
      1000, 1000, 7,
    ]);
    expect(engagement.deleteForMessages.mock.calls[2][0]).toEqual(ids(7, 'c'));
  });

  it('goes on purging when the engagement store fails', async () => {
    const { service, purged } = setup([ids(1000, 'a'), ids(3, 'b')], true);
    expect(await service.purgeExpired()).toBe(1003);
    expect(purged).toHaveLength(2);
  });

  it('answers 0 when nothing is past its retention', async () => {
    const { service, purged } = setup([]);
    expect(await service.purgeExpired()).toBe(0);
    expect(purged).toHaveLength(1);
  });
});
