// The one organization sending-limit function (§8), called by the send API, the SMTP relay and
// campaign fan-out: a single Redis Lua script checks all five windows and consumes all of them or
// none. Every key carries the hash tag {org:<id>} so the script also runs on Redis Cluster.
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import Redis from 'ioredis';
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

// One key per organization, `sl:{org:<id>}`, holds the state of all five windows packed with
// `struct` (21 doubles): a GET, arithmetic, a SET. That is what keeps the script close to a no-op
// EVALSHA in cost (see bench/send.ts). Layout:
//   1 newest 100 ms bucket seen, 2 perSecond sum, 3..13 the last 11 buckets' requests (a ring),
//   14/15 minute id/requests, 16/17 hour id/requests, 18/19 day id/recipients, 20/21 month id/recipients.
// perSecond slides in 100 ms steps and counts the current bucket and the ten before it, so a request
// stops counting 1.0 to 1.1 s after it was made: never more than the limit in any one second.
const STATE = `
local FMT = 'ddddddddddddddddddddd'
local function loadState(key, bucket)
  local raw = redis.call('GET', key)
  local st
  if raw then
    st = {struct.unpack(FMT, raw)}
  else
    st = {bucket, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
  end
  local last = st[1]
  if bucket > last then
    if bucket - last >= 11 then
      for i = 2, 13 do st[i] = 0 end
    else
      for b = last + 1, bucket do
        local i = 3 + (b % 11)
        st[2] = st[2] - st[i]
        st[i] = 0
      end
    end
    st[1] = bucket
  end
  return st
end
`;

// KEYS[1] state. ARGV: 1 now ms, 2 requests, 3 recipients, 4 month id, 5 limits "s,m,h,d,M".
// Returns 0 when consumed, else {refused window 1..5, perSecond free-at ms (0 for the others)}.
const CONSUME =
  STATE +
  `
local now = tonumber(ARGV[1])
local req = tonumber(ARGV[2])
local rcpt = tonumber(ARGV[3])
local MId = tonumber(ARGV[4])
local ls, lm, lh, ld, lM = string.match(ARGV[5], '^(%d+),(%d+),(%d+),(%d+),(%d+)$')
local bucket = math.floor(now / 100)
local mId, hId, dId = math.floor(now / 60000), math.floor(now / 3600000), math.floor(now / 86400000)
local st = loadState(KEYS[1], bucket)
local m = (st[14] == mId) and st[15] or 0
local h = (st[16] == hId) and st[17] or 0
local d = (st[18] == dId) and st[19] or 0
local M = (st[20] == MId) and st[21] or 0
local s = st[2]
local limit = tonumber(ls)
if s + req > limit then
  local need, freed = s + req - limit, 0
  for b = st[1] - 10, st[1] do
    freed = freed + st[3 + (b % 11)]
    if freed >= need then return {1, (b + 11) * 100} end
  end
  return {1, (st[1] + 11) * 100}
end
if m + req > tonumber(lm) then return {2, 0} end
if h + req > tonumber(lh) then return {3, 0} end
if d + rcpt > tonumber(ld) then return {4, 0} end
if M + rcpt > tonumber(lM) then return {5, 0} end
local i = 3 + (st[1] % 11)
st[i] = st[i] + req
redis.call('SET', KEYS[1], struct.pack(FMT, st[1], s + req, st[3], st[4], st[5], st[6], st[7], st[8],
  st[9], st[10], st[11], st[12], st[13], mId, m + req, hId, h + req, dId, d + rcpt, MId, M + rcpt),
  'EX', 2764800)
return 0
`;

// KEYS[1] state; ARGV: 1 now ms, 2 month id. The usage of every window, changing nothing.
const READ =
  STATE +
  `
local now = tonumber(ARGV[1])
local st = loadState(KEYS[1], math.floor(now / 100))
local function cur(i, id) if st[i] == id then return st[i + 1] end return 0 end
return {st[2], cur(14, math.floor(now / 60000)), cur(16, math.floor(now / 3600000)),
  cur(18, math.floor(now / 86400000)), cur(20, tonumber(ARGV[2]))}
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
  sendingLimitConsume(...args: (string | number)[]): Promise<0 | number[]>;
  sendingLimitRead(...args: (string | number)[]): Promise<number[]>;
};

/** The organization's one limit key; the hash tag keeps it Redis Cluster friendly. */
function stateKey(organizationId: string): string {
  return `sl:{org:${organizationId}}`;
}

/** UTC calendar month as one number (year × 12 + month). */
function monthId(nowMs: number): number {
  const d = new Date(nowMs);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
}

/** The five limits as one argument: fewer arguments is a measurably cheaper call. */
function limitsArg(l: SendingLimits): string {
  return `${l.perSecond},${l.perMinute},${l.perHour},${l.perDay},${l.perMonth}`;
}

@Injectable()
export class SendingLimiter {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @InjectDataSource() private readonly ds: DataSource,
    private readonly clock: Clock,
  ) {
    const r = redis as unknown as Partial<LimiterRedis>;
    if (!r.sendingLimitConsume) {
      redis.defineCommand('sendingLimitConsume', { numberOfKeys: 1, lua: CONSUME });
      redis.defineCommand('sendingLimitRead', { numberOfKeys: 1, lua: READ });
    }
  }

  /**
   * Checks and consumes `usage` against every window of the organization, atomically. Throws
   * SendingLimitExceededError naming the first window (perSecond → perMonth) that would overflow;
   * a refused request consumes nothing anywhere.
   */
  async consume(
    organizationId: string,
    usage: SendingUsage,
    opts: { limits?: SendingLimits } = {},
  ): Promise<void> {
    const limits = opts.limits ?? (await this.limitsOf(organizationId));
    const now = this.clock.now().getTime();
    const refused = await (this.redis as unknown as LimiterRedis).sendingLimitConsume(
      stateKey(organizationId),
      now,
      usage.requests,
      usage.recipients,
      monthId(now),
      limitsArg(limits),
    );
    if (refused === 0) return;
    const [index, freeAt] = refused as number[];
    const window = SENDING_WINDOWS[index - 1];
    const resetMs = window === 'perSecond' ? freeAt : calendarWindows(now)[window].resetMs;
    throw new SendingLimitExceededError(window, Math.max(1, Math.ceil((resetMs - now) / 1000)));
  }

  /** The budget of every window right now, without consuming (tests, headers, dashboards). */
  async remaining(
    organizationId: string,
    opts: { limits?: SendingLimits } = {},
  ): Promise<SendingBudget> {
    const limits = opts.limits ?? (await this.limitsOf(organizationId));
    const now = this.clock.now().getTime();
    const used = await (this.redis as unknown as LimiterRedis).sendingLimitRead(
      stateKey(organizationId),
      now,
      monthId(now),
    );
    const windows = calendarWindows(now);
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
}
