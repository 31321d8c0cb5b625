// Keeping the message log whole and bounded (§1, §8): the sweeper re-queues committed messages
// whose queue job was lost (Redis flushed or restarted), and the retention purge deletes messages
// older than their organization's messageRetentionDays.
import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { EmailDispatcher } from './email-dispatcher';
import { EngagementSweeper } from './engagement/engagement.sweeper';
import { MessageSweeper } from './message.sweeper';
import type { Redispatch, SweepCursor } from './message.types';

const SWEEP_BATCH = 500;
const PURGE_BATCH = 1000;

@Injectable()
export class MessageMaintenanceService {
  private readonly logger = new Logger(MessageMaintenanceService.name);

  constructor(
    private readonly messages: MessageSweeper,
    private readonly dispatcher: EmailDispatcher,
    private readonly engagement: EngagementSweeper,
    private readonly clock: Clock,
  ) {}

  /**
   * Re-queues messages due for longer than `graceMs` whose current job is not in the queue.
   * Scans every due message once, a batch at a time in due order (most have a live job), until
   * a scan returns less than a full batch. Returns how many were re-queued.
   */
  async sweep(graceMs: number): Promise<number> {
    const now = this.clock.now();
    let total = 0;
    let after: SweepCursor | null = null;
    for (;;) {
      const { lost, scanned, last } = await this.messages.sweepDue(
        now,
        graceMs,
        SWEEP_BATCH,
        after,
        async (rows) => {
          const gone: Redispatch[] = [];
          for (const r of rows) {
            if (!(await this.dispatcher.isLive(r.id, r.dispatchSeq))) gone.push(r);
          }
          return gone;
        },
      );
      for (const r of lost) await this.dispatcher.enqueue(r.organizationId, r.id, r.dispatchSeq);
      total += lost.length;
      if (scanned < SWEEP_BATCH) break;
      after = last;
    }
    if (total) this.logger.warn({ msg: 're-queued messages whose job was lost', count: total });
    return total;
  }

  /** Deletes messages past their organization's retention; returns how many. */
  async purgeExpired(): Promise<number> {
    const now = this.clock.now();
    let total = 0;
    for (;;) {
      const purged = await this.messages.purgeExpired(now, PURGE_BATCH);
      total += purged.length;
      await this.engagement.deleteForMessages(purged).catch((err: Error) =>
        this.logger.warn({
          msg: 'engagement events of purged messages not deleted',
          err: err.message,
        }),
      );
      if (purged.length < PURGE_BATCH) break;
    }
    if (total) this.logger.log({ msg: 'message retention purge', deleted: total });
    return total;
  }
}
