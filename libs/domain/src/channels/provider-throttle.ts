// Each provider account's throughput (§17): at most `maxPerSecond` sends in any one-second window,
// counted in Redis so that every worker replica shares the account's budget, and a pause after
// the provider answered 429 (its Retry-After), during which no worker sends through the account.
// A provider that also limits what one recipient gets (Telegram: about one message a second to a
// chat) has its sends to one address spaced as well (1000 / perSecond ms apart, however the
// seconds fall), keyed by the address's blind index. Keys are
// hash-tagged by account, so they land in one Redis Cluster slot.
import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import type { RedisClient } from '../redis/redis-client';
import { REDIS } from '../redis/redis.module';

// KEYS[1] the window's counter, KEYS[2] the pause, KEYS[3] the address's last send; ARGV[1] the
// cap, ARGV[2] the address's sends a second (0: no limit), ARGV[3] now (ms). Answers 0 when the
// send may go now (counted), else the milliseconds to wait, -1 for the rest of this second
// (nothing counted).
const TAKE = `
local paused = redis.call('PTTL', KEYS[2])
if paused > 0 then return paused end
local perAddress = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
if perAddress > 0 then
  local last = tonumber(redis.call('GET', KEYS[3]))
  local gap = math.ceil(1000 / perAddress)
  if last and now - last < gap then return gap - (now - last) end
end
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], 2000) end
if n > tonumber(ARGV[1]) then return -1 end
if perAddress > 0 then redis.call('SET', KEYS[3], now, 'PX', 2000) end
return 0
`;

type ThrottleRedis = RedisClient & {
  providerThrottleTake(
    window: string,
    pause: string,
    addressLast: string,
    cap: number,
    addressPerSecond: number,
    now: number,
  ): Promise<number>;
};

@Injectable()
export class ProviderThrottle {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly clock: Clock,
  ) {
    if (!(redis as unknown as Partial<ThrottleRedis>).providerThrottleTake) {
      redis.defineCommand('providerThrottleTake', { numberOfKeys: 3, lua: TAKE });
    }
  }

  /**
   * Takes one send of the account's budget (and spaces it from the address's last send, when
   * `address` gives its blind index and its sends a second): 0 when it may go now, else how many
   * milliseconds until it may be tried again (the rest of this second, the address's spacing, or
   * the account's pause).
   */
  async take(
    providerId: string,
    maxPerSecond: number,
    address?: { index: string; perSecond: number },
  ): Promise<number> {
    const now = this.clock.now().getTime();
    const second = Math.floor(now / 1000);
    const wait = await (this.redis as unknown as ThrottleRedis).providerThrottleTake(
      `chan:{${providerId}}:s:${second}`,
      `chan:{${providerId}}:pause`,
      `chan:{${providerId}}:a:${address?.index ?? '-'}`,
      maxPerSecond,
      address?.perSecond ?? 0,
      now,
    );
    if (wait === -1) return (second + 1) * 1000 - now;
    return wait;
  }

  /** No send through the account for `ms` (a provider 429 and its Retry-After). */
  async pause(providerId: string, ms: number): Promise<void> {
    await this.redis.set(`chan:{${providerId}}:pause`, '1', 'PX', Math.max(1, Math.round(ms)));
  }
}
