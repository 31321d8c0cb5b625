// The inbound port's intake (§14, §1): commits what it received, then asks a worker to process it
// now. Durable first: the row is what counts; a lost job only waits for the worker's next poll.
import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import { Clock } from '../common/clock';
import { JOBS, ProcessInboundJob, QUEUES } from '../queues/jobs';
import { InboundMessageRepository, NewInboundMessage } from './inbound-message.repository';

/** How long queueing may take before the intake answers anyway (the poll will pick it up). */
const ENQUEUE_TIMEOUT_MS = 2000;

@Injectable()
export class InboundIntake {
  private readonly logger = new Logger(InboundIntake.name);

  constructor(
    private readonly repository: InboundMessageRepository,
    @InjectQueue(QUEUES.inbound) private readonly queue: Queue,
    private readonly clock: Clock,
  ) {}

  /**
   * Resolves once the message is committed (its id), or null when the same bytes were received
   * before; throws when it could not be committed.
   */
  async accept(message: NewInboundMessage): Promise<string | null> {
    const id = await this.repository.store(message, this.clock.now());
    if (id) await this.enqueue(id);
    return id;
  }

  private async enqueue(inboundId: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.queue.add(JOBS.processInbound.name, { inboundId } satisfies ProcessInboundJob, {
          jobId: inboundId,
          removeOnComplete: true,
          removeOnFail: 1000,
        }),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('enqueue timed out')), ENQUEUE_TIMEOUT_MS);
        }),
      ]);
    } catch (err) {
      this.logger.warn({
        msg: 'inbound job not queued; the worker poll will process the message',
        inboundId,
        err: (err as Error).message,
      });
    } finally {
      clearTimeout(timer);
    }
  }
}
