// Bull transport of email delivery: takes `deliver` jobs off the email queue and runs one
// delivery of the message they name. Concurrency comes from DELIVERY_CONCURRENCY.
import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, DeliveryService, JOBS, QUEUES } from '@app/domain';
import type { AppConfig } from '@app/domain';
import type { Job, Queue } from 'bull';

@Injectable()
export class EmailProcessor implements OnModuleInit {
  private readonly logger = new Logger(EmailProcessor.name);

  constructor(
    @InjectQueue(QUEUES.email) private readonly queue: Queue,
    private readonly delivery: DeliveryService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    // process() resolves only when the queue closes: started, not awaited.
    this.queue
      .process(JOBS.deliverEmail.name, this.config.deliveryConcurrency, (job: Job) =>
        this.handle(job),
      )
      .catch((err: Error) =>
        this.logger.error({ msg: 'email processor stopped', err: err.message }),
      );
  }

  async handle(job: Job): Promise<void> {
    const payload = JOBS.deliverEmail.parse(job.data);
    if (!payload) {
      this.logger.warn({ msg: 'discarding malformed email job', jobId: job.id });
      return;
    }
    try {
      await this.delivery.deliver(payload.organizationId, payload.messageId);
    } catch (err) {
      // The job fails; the sweeper picks the message up again once its lease is free.
      this.logger.warn({
        msg: 'delivery run failed',
        messageId: payload.messageId,
        err: (err as Error).message,
      });
      throw err;
    }
  }
}
