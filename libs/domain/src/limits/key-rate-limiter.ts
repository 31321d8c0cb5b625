// Per-API-key request limits (spec Limits › Platform API): per minute and per day, fixed UTC
// windows, one atomic Lua check-and-consume. Keys never share a budget: every counter is
// named by the key id (hash-tagged so both windows land in one Redis Cluster slot).
import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import type { RedisClient } from '../redis/redis-client';
import { REDIS } from '../redis/redis.module';

const SCRIPT = `
local ml = tonumber(ARGV[1])
local dl = tonumber(ARGV[2])
local m = tonumber(redis.call('GET', KEYS[1]) or '0')
local d = 0
if dl > 0 then d = tonumber(redis.call('GET', KEYS[2]) or '0') end
local refuseM = m >= ml
local refuseD = dl > 0 and d >= dl
if refuseM or refuseD then
  return {0, ml - m, dl - d, refuseM and 1 or 0, refuseD and 1 or 0}
end
m = redis.call('INCR', KEYS[1])
if m == 1 then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
if dl > 0 then
  d = redis.call('INCR', KEYS[2])
  if d == 1 then redis.call('EXPIRE', KEYS[2], ARGV[4]) end
end
return {1, ml - m, dl - d, 0, 0}
`;

export interface KeyLimitDecision {
  allowed: boolean;
  /** The window closest to exhaustion: what X-RateLimit-* describe. */
  limit: number;
  remaining: number;
  /** When refused: seconds until the refusing window resets, and that instant. */
  retryAfter?: number;
  resetAt?: Date;
}

type LimitRedis = RedisClient & {
  keyRateLimit(
    k1: string,
    k2: string,
    ml: number,
    dl: number,
    mttl: number,
    dttl: number,
  ): Promise<number[]>;
};

const MINUTE = 60_000;
const DAY = 86_400_000;

@Injectable()
export class KeyRateLimiter {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly clock: Clock,
  ) {
    if (!(redis as unknown as Partial<LimitRedis>).keyRateLimit) {
      redis.defineCommand('keyRateLimit', { numberOfKeys: 2, lua: SCRIPT });
    }
  }

  async consume(
    keyId: string,
    perMinute: number,
    perDay: number | null,
  ): Promise<KeyLimitDecision> {
    const now = this.clock.now().getTime();
    const minuteStart = Math.floor(now / MINUTE) * MINUTE;
    const dayStart = Math.floor(now / DAY) * DAY;
    const minuteKey = `rl:{key:${keyId}}:m:${minuteStart / MINUTE}`;
    const dayKey = `rl:{key:${keyId}}:d:${dayStart / DAY}`;
    const [allowed, mLeft, dLeft, refusedM, refusedD] = await (
      this.redis as unknown as LimitRedis
    ).keyRateLimit(minuteKey, dayKey, perMinute, perDay ?? 0, 61, 86_401);
    const windows = [
      { limit: perMinute, remaining: Math.max(0, mLeft), reset: minuteStart + MINUTE },
    ];
    if (perDay)
      windows.push({ limit: perDay, remaining: Math.max(0, dLeft), reset: dayStart + DAY });
    const closest = windows.reduce((a, b) => (b.remaining < a.remaining ? b : a));
    if (allowed === 1) return { allowed: true, limit: closest.limit, remaining: closest.remaining };
    // Refused: the request may go again when every refusing window has reset.
    const resetMs = Math.max(refusedM ? minuteStart + MINUTE : 0, refusedD ? dayStart + DAY : 0);
    const refusing = resetMs === minuteStart + MINUTE ? windows[0] : windows[1];
    return {
      allowed: false,
      limit: refusing.limit,
      remaining: 0,
      retryAfter: Math.max(1, Math.ceil((resetMs - now) / 1000)),
      resetAt: new Date(resetMs),
    };
  }
}
