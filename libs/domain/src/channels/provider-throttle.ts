// Each provider account's throughput (§17): at most `maxPerSecond` sends in any one-second window,
// counted in Redis so that every worker replica shares the account's budget, and a pause after
// the provider answered 429 (its Retry-After), during which no worker sends through the account.
// Keys are hash-tagged by account, so both land in one Redis Cluster slot.
import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { Clock } from '../common/clock';
import { REDIS } from '../redis/redis.module';

// KEYS[1] the window's counter, KEYS[2] the pause; ARGV[1] the cap.
// Answers 0 when the send may go now, else the milliseconds to wait.
const TAKE = `
local paused = redis.call('PTTL', KEYS[2])
if paused > 0 then return paused end
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], 2000) end
if n > tonumber(ARGV[1]) then return -1 end
return 0
`;

type ThrottleRedis = Redis & {
  providerThrottleTake(window: string, pause: string, cap: number): Promise<number>;
};

@Injectable()
export class ProviderThrottle {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly clock: Clock,
  ) {
    if (!(redis as unknown as Partial<ThrottleRedis>).providerThrottleTake) {
      redis.defineCommand('providerThrottleTake', { numberOfKeys: 2, lua: TAKE });
    }
  }

  /**
   * Takes one send of the account's budget: 0 when it may go now, else how many milliseconds
   * until it may be tried again (the rest of this second, or of the account's pause).
   */
  async take(providerId: string, maxPerSecond: number): Promise<number> {
    const now = this.clock.now().getTime();
    const second = Math.floor(now / 1000);
    const wait = await (this.redis as unknown as ThrottleRedis).providerThrottleTake(
      `chan:{${providerId}}:s:${second}`,
      `chan:{${providerId}}:pause`,
      maxPerSecond,
    );
    if (wait === -1) return (second + 1) * 1000 - now;
    return wait;
  }

  /** No send through the account for `ms` (a provider 429 and its Retry-After). */
  async pause(providerId: string, ms: number): Promise<void> {
    await this.redis.set(`chan:{${providerId}}:pause`, '1', 'PX', Math.max(1, Math.round(ms)));
  }
}
