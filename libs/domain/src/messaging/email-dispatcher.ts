// Puts committed messages on the email queue. The job carries the message row id and its
// organization's id only; the content stays in PostgreSQL. Job ids are `<message id>:<dispatch seq>`, so the sweeper can tell
// whether the job of a message's current dispatch still exists.
import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import { MicroBatcher } from '../common/micro-batcher';
import type { OrgId } from '../common/org-id';
import { DeliverEmailJob, JOBS, QUEUES } from '../queues/jobs';

export function deliverJobId(messageId: string, dispatchSeq: number): string {
  return `${messageId}:${dispatchSeq}`;
}

/** The delivery job of a message just committed. */
interface NewDelivery {
  organizationId: OrgId;
  messageId: string;
}

/** How long an enqueue may take before the caller moves on (the sweeper will catch up). */
const ENQUEUE_TIMEOUT_MS = 3000;

/** The Bull job of one dispatch of a message (its id makes a second add of it a no-op). */
function deliverJob(organizationId: OrgId, messageId: string, dispatchSeq: number, delayMs = 0) {
  return {
    name: JOBS.deliverEmail.name,
    data: { organizationId, messageId } satisfies DeliverEmailJob,
    opts: {
      jobId: deliverJobId(messageId, dispatchSeq),
      delay: Math.max(0, Math.round(delayMs)),
      removeOnComplete: true,
      removeOnFail: 1000,
    },
  };
}

/** `work`, or a rejection once it has taken longer than ENQUEUE_TIMEOUT_MS. */
async function withinEnqueueTimeout(work: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      work,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('enqueue timed out')), ENQUEUE_TIMEOUT_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

@Injectable()
export class EmailDispatcher {
  private readonly logger = new Logger(EmailDispatcher.name);

  constructor(@InjectQueue(QUEUES.email) private readonly queue: Queue) {}

  /** Adds the delivery job; false (logged) when Redis did not take it. Never throws. */
  async enqueue(
    organizationId: OrgId,
    messageId: string,
    dispatchSeq: number,
    delayMs = 0,
  ): Promise<boolean> {
    const job = deliverJob(organizationId, messageId, dispatchSeq, delayMs);
    try {
      await withinEnqueueTimeout(this.queue.add(job.name, job.data, job.opts));
      return true;
    } catch (err) {
      this.logger.warn({
        msg: 'could not enqueue delivery; the sweeper will retry',
        messageId,
        err: (err as Error).message,
      });
      return false;
    }
  }

  /**
   * `enqueue(organizationId, messageId, 0)` for a message just committed, gathered with the
   * concurrent calls into one `addBulk` (one Redis pipeline, one write, instead of a round trip
   * each). Never throws.
   */
  enqueueNew(organizationId: OrgId, messageId: string): Promise<boolean> {
    return this.fresh.push({ organizationId, messageId });
  }

  private readonly fresh = new MicroBatcher<NewDelivery, boolean>(
    (jobs) => this.addNow(jobs),
    (job) => this.enqueue(job.organizationId, job.messageId, 0),
  );

  private async addNow(jobs: NewDelivery[]): Promise<boolean[]> {
    try {
      await withinEnqueueTimeout(
        this.queue.addBulk(jobs.map((j) => deliverJob(j.organizationId, j.messageId, 0))),
      );
      return jobs.map(() => true);
    } catch (err) {
      this.logger.warn({
        msg: 'could not enqueue deliveries; the sweeper will retry',
        count: jobs.length,
        err: (err as Error).message,
      });
      return jobs.map(() => false);
    }
  }

  /** Whether the job of this dispatch is still waiting, delayed or running. */
  async isLive(messageId: string, dispatchSeq: number): Promise<boolean> {
    const job = await this.queue.getJob(deliverJobId(messageId, dispatchSeq));
    if (!job) return false;
    const state = await job.getState();
    return state === 'waiting' || state === 'delayed' || state === 'active' || state === 'paused';
  }
}
