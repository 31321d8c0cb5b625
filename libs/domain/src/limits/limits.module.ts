// Rate-limit windows shared by every transport: per API key, per client IP, per organization.
import { Global, Module } from '@nestjs/common';
import { Clock, SystemClock } from '../common/clock';
import { AuthFailureLimiter, IpRequestLimiter } from './ip-limits';
import { KeyRateLimiter } from './key-rate-limiter';
import { SendingLimiter } from './sending-limiter';

@Global()
@Module({
  providers: [
    { provide: Clock, useClass: SystemClock },
    KeyRateLimiter,
    SendingLimiter,
    IpRequestLimiter,
    AuthFailureLimiter,
  ],
  exports: [Clock, KeyRateLimiter, SendingLimiter, IpRequestLimiter, AuthFailureLimiter],
})
export class LimitsModule {}
