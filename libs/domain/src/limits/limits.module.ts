// Rate-limit windows shared by every transport: per API key, per client IP, per organization,
// per login account; connections open at once per client IP.
import { Global, Module } from '@nestjs/common';
import { Clock, SystemClock } from '../common/clock';
import { AccountFailureLimiter } from './account-limits';
import { AuthFailureLimiter, IpConnectionLimiter, IpRequestLimiter } from './ip-limits';
import { KeyRateLimiter } from './key-rate-limiter';
import { SendingLimiter } from './sending-limiter';

@Global()
@Module({
  providers: [
    { provide: Clock, useClass: SystemClock },
    KeyRateLimiter,
    SendingLimiter,
    IpRequestLimiter,
    IpConnectionLimiter,
    AuthFailureLimiter,
    AccountFailureLimiter,
  ],
  exports: [
    Clock,
    KeyRateLimiter,
    SendingLimiter,
    IpRequestLimiter,
    IpConnectionLimiter,
    AuthFailureLimiter,
    AccountFailureLimiter,
  ],
})
export class LimitsModule {}
