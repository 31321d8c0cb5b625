// Worker transport of the campaign fan-out: the `campaign.kick` job and the poll timer.
import { InjectQueue } from '@nestjs/bull';
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { APP_CONFIG, CampaignFanoutService, JOBS, Periodic, QUEUES } from '@app/domain';
import type { AppConfig } from '@app/domain';
import type { Job, Queue } from 'bull';

/**
 * The kick queued by the send endpoint and a timer every CAMPAIGN_POLL_INTERVAL_MS (held
 * recipients whose window reopened, kicks lost in Redis) both run every due campaign. Runs of one
 * process never overlap; the timer runs in every process, as the rows are claimed with SKIP LOCKED.
 */
@Injectable()
export class CampaignFanoutWorker
  implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown
{
  private readonly logger = new Logger(CampaignFanoutWorker.name);
  /** Every due campaign; a kick or a tick during a run asks for one more run after it. */
  private readonly fanout = new Periodic('campaign fan-out run', this.logger, () =>
    this.service.runDue(),
  );

  constructor(
    @InjectQueue(QUEUES.campaigns) private readonly queue: Queue,
    private readonly service: CampaignFanoutService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    // process() resolves only when the queue closes: started, not awaited.
    this.queue
      .process(JOBS.kickCampaign.name, 1, (job: Job) => this.kick(job))
      .catch((err: Error) =>
        this.logger.error({ msg: 'campaign processor stopped', err: err.message }),
      );
  }

  onApplicationBootstrap(): void {
    this.fanout.start(this.config.campaignPollIntervalMs, { catchUp: true });
  }

  onApplicationShutdown(): void {
    // Not awaited: a run goes on until no campaign is due, which may be long; each batch is its
    // own transaction, so one cut short by the shutdown leaves its recipients due.
    void this.fanout.stop();
  }

  private async kick(job: Job): Promise<void> {
    if (!JOBS.kickCampaign.parse(job.data)) {
      this.logger.warn({ msg: 'discarding malformed campaign job', jobId: job.id });
      return;
    }
    // All due campaigns, not only this one: the run is shared with the poll.
    await this.run();
  }

  /** Runs every due campaign after any run under way. Resolves when it is done. */
  run(): Promise<void> {
    return this.fanout.runAfter();
  }
}
