// The Bull consumer of the webhooks queue: first attempts and resends, by delivery id.
import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { AppConfig } from '@app/domain';
import { APP_CONFIG, QUEUES, WebhookDeliveryJob } from '@app/domain';
import type { Job, Queue } from 'bull';
import { WebhookDispatcher } from './webhook-dispatcher.service';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@Injectable()
export class WebhookDeliveryProcessor implements OnModuleInit {
  private readonly logger = new Logger(WebhookDeliveryProcessor.name);

  constructor(
    @InjectQueue(QUEUES.webhooks) private readonly queue: Queue<WebhookDeliveryJob>,
    private readonly dispatcher: WebhookDispatcher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    // Registered here rather than with @Process so the concurrency comes from the configuration.
    // Four times the request slots: a job claiming or recording holds none, and the claims and
    // records of many jobs go to PostgreSQL together, so a deeper pipeline keeps the slots busy.
    this.queue
      .process(4 * this.config.webhookConcurrency, (job: Job<WebhookDeliveryJob>) =>
        this.handle(job),
      )
      .catch((err: Error) =>
        this.logger.error({ msg: 'webhook queue processing stopped', err: err.message }),
      );
  }

  async handle(job: Job<WebhookDeliveryJob>): Promise<string> {
    const id = job.data?.deliveryId;
    if (typeof id !== 'string' || !UUID.test(id)) {
      this.logger.warn({ msg: 'webhook job without a valid delivery id dropped', jobId: job.id });
      return 'invalid';
    }
    // A delivery held by another worker or waiting for a later retry is not claimed: no-op.
    return this.dispatcher.dispatchById(id);
  }
}
