// Idempotency-Key records of the send API (§13), in PostgreSQL.
import { Module } from '@nestjs/common';
import { IdempotencyRepository } from './idempotency.repository';
import { IdempotencyService } from './idempotency.service';
import { IdempotencySweeper } from './idempotency.sweeper';

@Module({
  providers: [IdempotencyRepository, IdempotencyService, IdempotencySweeper],
  exports: [IdempotencyService, IdempotencySweeper],
})
export class IdempotencyModule {}
