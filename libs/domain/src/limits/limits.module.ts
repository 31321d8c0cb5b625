// Rate-limit windows shared by every transport: per API key now, organization sending limits later.
import { Global, Module } from '@nestjs/common';
import { Clock, SystemClock } from '../common/clock';
import { KeyRateLimiter } from './key-rate-limiter';

@Global()
@Module({
  providers: [{ provide: Clock, useClass: SystemClock }, KeyRateLimiter],
  exports: [Clock, KeyRateLimiter],
})
export class LimitsModule {}
