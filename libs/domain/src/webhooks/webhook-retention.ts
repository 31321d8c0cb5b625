// The retention of webhook delivery history: a finished delivery (delivered or failed) is kept as
// long as its organization keeps its message log (messageRetentionDays), then deleted with its
// attempts. Pending deliveries are never purged: their retries are still due.
import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { WebhookDeliveryLogRepository } from './webhook-delivery-log.repository';

const PURGE_BATCH = 1000;

@Injectable()
export class WebhookRetention {
  private readonly logger = new Logger(WebhookRetention.name);

  constructor(
    private readonly log: WebhookDeliveryLogRepository,
    private readonly clock: Clock,
  ) {}

  /** Deletes the finished deliveries past their organization's retention; returns how many. */
  async purgeExpired(): Promise<number> {
    const now = this.clock.now();
    let total = 0;
    for (;;) {
      const gone = await this.log.purgeExpired(now, PURGE_BATCH);
      total += gone;
      if (gone < PURGE_BATCH) break;
    }
    if (total) this.logger.log({ msg: 'webhook delivery retention purge', deleted: total });
    return total;
  }
}
