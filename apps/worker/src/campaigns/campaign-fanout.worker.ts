// Worker transport of the campaign fan-out: the `campaign.kick` job the send endpoint queues runs
// that campaign now, and a timer runs every sending campaign's due recipients (held ones whose
// window reopened, and campaigns whose kick was lost in Redis) every CAMPAIGN_POLL_INTERVAL_MS.
// Runs of one process never overlap; across processes the rows are claimed with SKIP LOCKED.
import { InjectQueue } from '@nestjs/bull';
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { APP_CONFIG, CAMPAIGN_JOBS, CampaignFanoutService, QUEUES } from '@app/domain';
import type { AppConfig, CampaignKickJob } from '@app/domain';
import type { Job, Queue } from 'bull';

@Injectable()
export class CampaignFanoutWorker
  implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown
{
  private readonly logger = new Logger(CampaignFanoutWorker.name);
  private timer: NodeJS.Timeout | undefined;
  /** The current run; a kick or a tick during it asks for one more run after it. */
  private running: Promise<void> | null = null;
  private again = false;

  constructor(
    @InjectQueue(QUEUES.campaigns) private readonly queue: Queue,
    private readonly fanout: CampaignFanoutService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    // process() resolves only when the queue closes: started, not awaited.
    this.queue
      .process(CAMPAIGN_JOBS.kick, 1, (job: Job<CampaignKickJob>) => this.kick(job))
      .catch((err: Error) =>
        this.logger.error({ msg: 'campaign processor stopped', err: err.message }),
      );
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.run(), this.config.campaignPollIntervalMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private async kick(job: Job<CampaignKickJob>): Promise<void> {
    if (typeof job.data?.campaignId !== 'string') {
      this.logger.warn({ msg: 'discarding malformed campaign job', jobId: job.id });
      return;
    }
    // All due campaigns, not only this one: the run is shared with the poll.
    await this.run();
  }

  /** Runs every due campaign; never two runs at once in this process. Resolves when it is done. */
  run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          await this.fanout.runDue();
        } catch (err) {
          this.logger.warn({ msg: 'campaign fan-out run failed', err: (err as Error).message });
        }
      } while (this.again);
    })().finally(() => {
      this.running = null;
    });
    return this.running;
  }
}
