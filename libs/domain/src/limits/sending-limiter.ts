// The one organization sending-limit function (§8), called by the send API, the SMTP relay and
// campaign fan-out: a single Redis Lua script checks all five windows and consumes all of them or
// none. Every key carries the hash tag {org:<id>} so the script also runs on Redis Cluster.
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { NotFoundError, RateLimitedError } from '../errors/domain-errors';
import { REDIS } from '../redis/redis.module';
import type { Plan } from '../tenancy/organization.entity';
import {
  calendarWindows,
  resolveSendingLimits,
  SENDING_WINDOWS,
  SendingLimits,
  SendingWindow,
} from './sending-limits';

// KEYS: 1 perSecond sorted set (sliding log, score = ms), 2..5 perMinute/perHour/perDay/perMonth
// counters. ARGV: 1 now ms, 2 requests, 3 recipients, 4..8 the five limits, 9..12 counter TTLs (s),
// 13 a unique member prefix. Returns {allowed, refusedWindowIndex, perSecondFreeAtMs, used x5}.
const CONSUME = `
local now = tonumber(ARGV[1])
local req = tonumber(ARGV[2])
local rcpt = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 1000)
local used = {redis.call('ZCARD', KEYS[1])}
local c = redis.call('MGET', KEYS[2], KEYS[3], KEYS[4], KEYS[5])
for i = 1, 4 do used[i + 1] = tonumber(c[i] or '0') end
local add = {req, req, req, rcpt, rcpt}
for i = 1, 5 do
  local limit = tonumber(ARGV[3 + i])
  if used[i] + add[i] > limit then
    local freeAt = 0
    if i == 1 then
      local n = used[1] + req - limit
      if n >= 1 and n <= used[1] then
        local e = redis.call('ZRANGE', KEYS[1], n - 1, n - 1, 'WITHSCORES')
        freeAt = tonumber(e[2]) + 1000
      end
    end
    return {0, i, freeAt, used[1], used[2], used[3], used[4], used[5]}
  end
end
if req > 0 then
  local args = {}
  for j = 1, req do
    args[#args + 1] = now
    args[#args + 1] = ARGV[13] .. ':' .. j
  end
  redis.call('ZADD', KEYS[1], unpack(args))
  redis.call('PEXPIRE', KEYS[1], 10000)
  used[1] = used[1] + req
end
for i = 2, 5 do
  if add[i] > 0 then
    local v = redis.call('INCRBY', KEYS[i], add[i])
    if v == add[i] then redis.call('EXPIRE', KEYS[i], ARGV[7 + i]) end
    used[i] = v
  end
end
return {1, 0, 0, used[1], used[2], used[3], used[4], used[5]}
`;

// Same KEYS; ARGV[1] now ms. Reads the usage of every window without changing anything.
const READ = `
local s = redis.call('ZCOUNT', KEYS[1], '(' .. (tonumber(ARGV[1]) - 1000), '+inf')
local c = redis.call('MGET', KEYS[2], KEYS[3], KEYS[4], KEYS[5])
return {s, tonumber(c[1] or '0'), tonumber(c[2] or '0'), tonumber(c[3] or '0'), tonumber(c[4] or '0')}
`;

export interface SendingUsage {
  /** Send requests (SMTP transactions, API calls, campaign messages). */
  requests: number;
  /** Recipients, To + Cc + Bcc. */
  recipients: number;
}

export interface WindowBudget {
  limit: number;
  used: number;
  remaining: number;
  /** Start of the next window (UTC); null for the sliding perSecond window. */
  resetsAt: Date | null;
}

export type SendingBudget = Record<SendingWindow, WindowBudget>;

/** 429 `Rate limit exceeded: <window>`; Retry-After is the seconds until that window has room. */
export class SendingLimitExceededError extends RateLimitedError {
  constructor(
    readonly window: SendingWindow,
    retryAfter: number,
  ) {
    super(`Rate limit exceeded: ${window}`, retryAfter);
  }
}

type LimiterRedis = Redis & {
  sendingLimitConsume(...args: (string | number)[]): Promise<number[]>;
  sendingLimitRead(...args: (string | number)[]): Promise<number[]>;
};

@Injectable()
export class SendingLimiter {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @InjectDataSource() private readonly ds: DataSource,
    private readonly clock: Clock,
  ) {
    const r = redis as unknown as Partial<LimiterRedis>;
    if (!r.sendingLimitConsume) {
      redis.defineCommand('sendingLimitConsume', { numberOfKeys: 5, lua: CONSUME });
      redis.defineCommand('sendingLimitRead', { numberOfKeys: 5, lua: READ });
    }
  }

  /**
   * Checks and consumes `usage` against every window of the organization, atomically. Throws
   * SendingLimitExceededError naming the first window (perSecond → perMonth) that would overflow;
   * a refused request consumes nothing anywhere. Returns the budget left after consuming.
   */
  async consume(
    organizationId: string,
    usage: SendingUsage,
    opts: { limits?: SendingLimits } = {},
  ): Promise<SendingBudget> {
    const limits = opts.limits ?? (await this.limitsOf(organizationId));
    const now = this.clock.now().getTime();
    const { keys, windows } = this.keys(organizationId, now);
    const ttl = (w: Exclude<SendingWindow, 'perSecond'>) =>
      Math.ceil((windows[w].resetMs - now) / 1000) + 60;
    const [allowed, refused, freeAt, ...used] = await (
      this.redis as unknown as LimiterRedis
    ).sendingLimitConsume(
      ...keys,
      now,
      usage.requests,
      usage.recipients,
      ...SENDING_WINDOWS.map((w) => limits[w]),
      ttl('perMinute'),
      ttl('perHour'),
      ttl('perDay'),
      ttl('perMonth'),
      randomBytes(8).toString('hex'),
    );
    if (allowed !== 1) {
      const window = SENDING_WINDOWS[refused - 1];
      const resetMs =
        window === 'perSecond' ? (freeAt > 0 ? freeAt : now + 1000) : windows[window].resetMs;
      throw new SendingLimitExceededError(window, Math.max(1, Math.ceil((resetMs - now) / 1000)));
    }
    return this.budget(limits, used, windows);
  }

  /** The budget of every window right now, without consuming (tests, headers, dashboards). */
  async remaining(
    organizationId: string,
    opts: { limits?: SendingLimits } = {},
  ): Promise<SendingBudget> {
    const limits = opts.limits ?? (await this.limitsOf(organizationId));
    const now = this.clock.now().getTime();
    const { keys, windows } = this.keys(organizationId, now);
    const used = await (this.redis as unknown as LimiterRedis).sendingLimitRead(...keys, now);
    return this.budget(limits, used, windows);
  }

  /** Plan defaults with the organization's overrides. */
  async limitsOf(organizationId: string): Promise<SendingLimits> {
    const rows: {
      plan: Plan;
      limit_per_second: number | null;
      limit_per_minute: number | null;
      limit_per_hour: number | null;
      limit_per_day: number | null;
      limit_per_month: number | null;
    }[] = await this.ds.query(
      `SELECT plan, limit_per_second, limit_per_minute, limit_per_hour, limit_per_day, limit_per_month
         FROM organizations WHERE id = $1`,
      [organizationId],
    );
    if (!rows.length) throw new NotFoundError('Organization');
    const r = rows[0];
    return resolveSendingLimits({
      plan: r.plan,
      limitPerSecond: r.limit_per_second,
      limitPerMinute: r.limit_per_minute,
      limitPerHour: r.limit_per_hour,
      limitPerDay: r.limit_per_day,
      limitPerMonth: r.limit_per_month,
    });
  }

  private keys(organizationId: string, now: number) {
    const windows = calendarWindows(now);
    const base = `sl:{org:${organizationId}}`;
    const keys = [
      `${base}:s`,
      `${base}:${windows.perMinute.id}`,
      `${base}:${windows.perHour.id}`,
      `${base}:${windows.perDay.id}`,
      `${base}:${windows.perMonth.id}`,
    ];
    return { keys, windows };
  }

  private budget(
    limits: SendingLimits,
    used: number[],
    windows: ReturnType<typeof calendarWindows>,
  ): SendingBudget {
    const out = {} as SendingBudget;
    SENDING_WINDOWS.forEach((w, i) => {
      out[w] = {
        limit: limits[w],
        used: used[i],
        remaining: Math.max(0, limits[w] - used[i]),
        resetsAt: w === 'perSecond' ? null : new Date(windows[w].resetMs),
      };
    });
    return out;
  }
}
