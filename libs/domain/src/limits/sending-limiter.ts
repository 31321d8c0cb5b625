// The one organization sending-limit function (§8), called by the send API, the SMTP relay and
// campaign fan-out: a single Redis Lua script checks all five windows and consumes all of them or
// none. The checks of one turn of the event loop go to Redis together, one script call per
// organization that checks and consumes them in order. Every key carries the hash tag {org:<id>}
// so the script also runs on Redis Cluster.
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { MicroBatcher } from '../common/micro-batcher';
import type { OrgId } from '../common/org-id';
import { query, sql } from '../database/sql';
import { NotFoundError, RateLimitedError } from '../errors/domain-errors';
import type { RedisClient } from '../redis/redis-client';
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
// `struct` as 18 little-endian doubles: one GET, plain arithmetic on locals, one write. The write
// is a SETRANGE over the same 144 bytes, which keeps the key's TTL; the whole key is SET with a
// 32-day TTL when it is new or on its first write of a UTC day, so it outlives the month of its
// last write. Layout:
//   last   newest 100 ms step seen (ms / 100); the calendar windows below are those of this step
//   s      perSecond sum = r0 + … + r10
//   r0…r10 requests of the steps last, last − 1, …, last − 10 (newest first)
//   m h d  requests this minute, this hour; recipients this day (of step `last`)
//   MId M  UTC month id (year × 12 + month − 1) and its recipients
// perSecond slides in 100 ms steps and counts the current step and the ten before it, so a request
// stops counting 1.0 to 1.1 s after it was made: never more than the limit in any one second.
// A request whose clock reads earlier than `last` (another host's clock a little behind) counts
// in step `last` and its calendar windows: the state never goes back in time.
const RING = 'r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10';
const STATE = `
local FMT = '<dddddddddddddddddd'
local raw = redis.call('GET', KEYS[1])
-- renew: write the whole key with its TTL (new key, first write of a UTC day)
local renew = not raw
local last, s, ${RING}, m, h, d, MId, M = -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0
if raw then
  last, s, ${RING}, m, h, d, MId, M = struct.unpack(FMT, raw)
end
local k = bucket - last
if k > 0 then
  if k > 10 then
    s, ${RING} = 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
  else
    for _ = 1, k do
      s = s - r10
      r10, r9, r8, r7, r6, r5, r4, r3, r2, r1, r0 = r9, r8, r7, r6, r5, r4, r3, r2, r1, r0, 0
    end
  end
  -- Calendar windows: a minute is 600 steps, an hour 36,000, a day 864,000.
  if bucket - bucket % 600 ~= last - last % 600 then
    m = 0
    if bucket - bucket % 36000 ~= last - last % 36000 then
      h = 0
      local day = bucket - bucket % 864000
      if day ~= last - last % 864000 then
        d = 0
        renew = true
        -- The UTC month of the day (days since the epoch → civil date, H. Hinnant's algorithm).
        local z = day / 864000 + 719468
        local era = (z - z % 146097) / 146097
        local doe = z - era * 146097
        local t = doe - (doe - doe % 1460) / 1460 + (doe - doe % 36524) / 36524 - (doe - doe % 146096) / 146096
        local yoe = (t - t % 365) / 365
        local doy = doe - (365 * yoe + (yoe - yoe % 4) / 4 - (yoe - yoe % 100) / 100)
        local mp = 5 * doy + 2
        mp = (mp - mp % 153) / 153
        -- mp counts months from March: 0..9 are March..December of year yoe, 10 and 11 the
        -- January and February after it.
        local mid = (era * 400 + yoe) * 12 + mp + 2
        if mid ~= MId then MId, M = mid, 0 end
      end
    end
  end
  last = bucket
end
`;

// KEYS[1] state. ARGV[1..6]: now ms and the limits perSecond, perMinute, perHour, perDay,
// perMonth; then a pair per request, its requests and recipients; all as decimal text. The
// requests are checked and consumed in order, each against the state the ones before it left.
// Returns a pair per request: {0, 0} when consumed, else {refused window 1..5, perSecond free-at
// ms (0 for the others)}.
const CONSUME =
  `
local now = tonumber(ARGV[1])
local ls, lm, lh, ld, lM = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local bucket = (now - now % 100) / 100
` +
  STATE +
  `
local out, consumed = {}, false
for i = 7, #ARGV, 2 do
  local req, rcpt = tonumber(ARGV[i]), tonumber(ARGV[i + 1])
  local window, freeAt = 0, 0
  if s + req > ls then
    local ring, need, freed = {r10, r9, r8, r7, r6, r5, r4, r3, r2, r1, r0}, s + req - ls, 0
    window, freeAt = 1, (last + 11) * 100
    for j = 1, 10 do
      freed = freed + ring[j]
      if freed >= need then freeAt = (last + j) * 100 break end
    end
  elseif m + req > lm then window = 2
  elseif h + req > lh then window = 3
  elseif d + rcpt > ld then window = 4
  elseif M + rcpt > lM then window = 5
  else
    s, r0, m, h, d, M = s + req, r0 + req, m + req, h + req, d + rcpt, M + rcpt
    consumed = true
  end
  out[#out + 1] = window
  out[#out + 1] = freeAt
end
if consumed then
  local v = struct.pack(FMT, last, s, r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, m, h, d, MId, M)
  if renew then
    redis.call('SET', KEYS[1], v, 'EX', 2764800)
  else
    redis.call('SETRANGE', KEYS[1], 0, v)
  end
end
return out
`;

// KEYS[1] state; ARGV[1] now ms. The usage of every window, changing nothing.
const READ =
  `
local now = tonumber(ARGV[1])
local bucket = (now - now % 100) / 100
` +
  STATE +
  `
return {s, m, h, d, M}
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

type LimiterRedis = RedisClient & {
  sendingLimitConsume(key: string, ...args: number[]): Promise<number[]>;
  sendingLimitRead(key: string, now: number): Promise<number[]>;
};

interface LimitCheck {
  organizationId: OrgId;
  limits: SendingLimits;
  usage: SendingUsage;
  now: number;
}

/** The organization's one limit key; the hash tag keeps it Redis Cluster friendly. */
function stateKey(organizationId: OrgId): string {
  return `sl:{org:${organizationId}}`;
}

@Injectable()
export class SendingLimiter {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
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
    organizationId: OrgId,
    usage: SendingUsage,
    opts: { limits?: SendingLimits } = {},
  ): Promise<void> {
    const limits = opts.limits ?? (await this.limitsOf(organizationId));
    const now = this.clock.now().getTime();
    const refused = await this.checks.push({ organizationId, limits, usage, now });
    if (!refused) return;
    const [index, freeAt, at] = refused;
    const window = SENDING_WINDOWS[index - 1];
    const resetMs = window === 'perSecond' ? freeAt : calendarWindows(at)[window].resetMs;
    throw new SendingLimitExceededError(window, Math.max(1, Math.ceil((resetMs - at) / 1000)));
  }

  /**
   * The checks of one turn of the event loop, one script call per organization (and limits): a
   * burst of sends costs Redis one state read and one write, not one per request. Returns, per
   * check, null when consumed, else the refused window (1..5), the perSecond free-at ms and the
   * time the script counted in.
   */
  private readonly checks = new MicroBatcher<LimitCheck, [number, number, number] | null>(
    async (batch) => {
      const groups = new Map<string, number[]>();
      batch.forEach((c, i) => {
        const l = c.limits;
        const group = `${c.organizationId} ${l.perSecond} ${l.perMinute} ${l.perHour} ${l.perDay} ${l.perMonth}`;
        const members = groups.get(group);
        if (members) members.push(i);
        else groups.set(group, [i]);
      });
      const out: ([number, number, number] | null)[] = [];
      await Promise.all(
        [...groups.values()].map(async (members) => {
          const { organizationId, limits: l } = batch[members[0]];
          const now = Math.max(...members.map((i) => batch[i].now));
          const usages = members.flatMap((i) => [
            batch[i].usage.requests,
            batch[i].usage.recipients,
          ]);
          const replies = await (this.redis as unknown as LimiterRedis).sendingLimitConsume(
            stateKey(organizationId),
            now,
            l.perSecond,
            l.perMinute,
            l.perHour,
            l.perDay,
            l.perMonth,
            ...usages,
          );
          members.forEach((i, k) => {
            const window = replies[2 * k];
            out[i] = window === 0 ? null : [window, replies[2 * k + 1], now];
          });
        }),
      );
      return out;
    },
    null,
    256,
  );

  /** The budget of every window right now, without consuming (tests, headers, dashboards). */
  async remaining(
    organizationId: OrgId,
    opts: { limits?: SendingLimits } = {},
  ): Promise<SendingBudget> {
    const limits = opts.limits ?? (await this.limitsOf(organizationId));
    const now = this.clock.now().getTime();
    const used = await (this.redis as unknown as LimiterRedis).sendingLimitRead(
      stateKey(organizationId),
      now,
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
  async limitsOf(organizationId: OrgId): Promise<SendingLimits> {
    const [r] = await query<{
      plan: Plan;
      limit_per_second: number | null;
      limit_per_minute: number | null;
      limit_per_hour: number | null;
      limit_per_day: number | null;
      limit_per_month: number | null;
    }>(
      this.ds,
      sql`SELECT plan, limit_per_second, limit_per_minute, limit_per_hour, limit_per_day,
                 limit_per_month
            FROM organizations WHERE id = ${organizationId}::uuid`,
    );
    if (!r) throw new NotFoundError('Organization');
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
