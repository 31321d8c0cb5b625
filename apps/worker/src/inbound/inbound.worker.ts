// Worker transport of inbound mail (§14): the `inbound.process` job the inbound port queues runs the
// processing now, and a timer runs it every INBOUND_POLL_INTERVAL_MS for rows whose job was lost
// (Redis flushed, a worker killed mid-way) or whose retry is due (InboundPurge deletes processed
// rows). Runs of one process never overlap; the timer runs in every process, as rows are leased
// with SKIP LOCKED.
import { InjectQueue } from '@nestjs/bull';
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { APP_CONFIG, InboundService, JOBS, Periodic, QUEUES } from '@app/domain';
import type { AppConfig } from '@app/domain';
import type { Job, Queue } from 'bull';

@Injectable()
export class InboundWorker implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(InboundWorker.name);
  /** Everything due; a job or a tick during a run asks for one more run after it. */
  private readonly processing = new Periodic('inbound processing', this.logger, async () => {
    while ((await this.service.processDue()) > 0);
  });

  constructor(
    @InjectQueue(QUEUES.inbound) private readonly queue: Queue,
    private readonly service: InboundService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    // process() resolves only when the queue closes: started, not awaited.
    this.queue
      .process(JOBS.processInbound.name, 1, (job: Job) => this.kick(job))
      .catch((err: Error) =>
        this.logger.error({ msg: 'inbound processor stopped', err: err.message }),
      );
  }

  onApplicationBootstrap(): void {
    this.processing.start(this.config.inboundPollIntervalMs, { now: true, catchUp: true });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.processing.stop();
  }

  private async kick(job: Job): Promise<void> {
    if (!JOBS.processInbound.parse(job.data)) {
      this.logger.warn({ msg: 'discarding malformed inbound job', jobId: job.id });
      return;
    }
    // Every due message, not only this one: the run is shared with the poll.
    await this.processing.runAfter();
  }
}
