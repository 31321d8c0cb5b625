// Worker timers of §13: the sending-domain re-checks and the Idempotency-Key purge.
import { Module } from '@nestjs/common';
import { IdempotencyModule, SendingDomainsModule } from '@app/domain';
import { DomainChecksScheduler } from './domain-checks.scheduler';
import { IdempotencyPurge } from './idempotency-purge';

@Module({
  imports: [SendingDomainsModule, IdempotencyModule],
  providers: [DomainChecksScheduler, IdempotencyPurge],
  exports: [DomainChecksScheduler],
})
export class SendingDomainsWorkerModule {}
