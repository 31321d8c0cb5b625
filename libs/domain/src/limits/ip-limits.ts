// Per-client-IP limits of the send API, the SMTP relay and the inbound port (spec Limits › Email
// send API, §8, §9, §16): request windows that start at an IP's first request, the
// failed-authentication window that starts at its first failure, and connections open at once.
// Counters live in Redis so every replica and transport shares them; an IPv6 client is counted by
// its /64 (§16).
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import ipaddr from 'ipaddr.js';
import { randomBytes } from 'node:crypto';
import { RateLimitedError } from '../errors/domain-errors';
import type { RedisClient } from '../redis/redis-client';
import { REDIS } from '../redis/redis.module';

export const TOO_MANY_REQUESTS_MESSAGE = 'Too many requests, please try again later.';
export const TOO_MANY_FAILED_ATTEMPTS_MESSAGE = 'Too many failed attempts, please try again later';

/** More than this many failures from one IP within the window block it until the window ends. */
export const AUTH_FAILURE_LIMIT = 20;
export const AUTH_FAILURE_WINDOW_SECONDS = 15 * 60;

export interface IpPolicy {
  /** Part of the Redis key: one counter per IP and policy. */
  name: string;
  limit: number;
  windowSeconds: number;
}

export interface IpPolicyState {
  policy: IpPolicy;
  count: number;
  remaining: number;
  /** Seconds until this IP's window of the policy ends. */
  resetSeconds: number;
  exceeded: boolean;
}

// KEYS: one counter per policy; ARGV: each policy's window in ms. Returns {count, pttl} pairs.
const HIT = `
local out = {}
for i = 1, #KEYS do
  local c = redis.call('INCR', KEYS[i])
  if c == 1 then redis.call('PEXPIRE', KEYS[i], ARGV[i]) end
  local ttl = redis.call('PTTL', KEYS[i])
  if ttl < 0 then
    redis.call('PEXPIRE', KEYS[i], ARGV[i])
    ttl = tonumber(ARGV[i])
  end
  out[#out + 1] = c
  out[#out + 1] = ttl
end
return out
`;

// KEYS[1] the failure counter; ARGV[1] 1 to record a failure, 0 to read, -1 to withdraw one
// (never below 0, never creating the key: the window keeps its end); ARGV[2] window ms.
const FAILURES = `
local c
if ARGV[1] == '1' then
  c = redis.call('INCR', KEYS[1])
  if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
else
  c = tonumber(redis.call('GET', KEYS[1]) or '0')
  if ARGV[1] == '-1' and c > 0 then c = redis.call('DECR', KEYS[1]) end
end
local ttl = redis.call('PTTL', KEYS[1])
return {c, ttl}
`;

// KEYS[1] the open connections of one client (a sorted set: member a lease, score its end in ms
// of the Redis clock); ARGV[1] the lease, ARGV[2] its length in ms, ARGV[3] the limit. Leases past
// their end are dropped first, so a replica that died leaves nothing behind for long. Returns 1
// when the lease is taken, 0 when the client already holds the limit.
const OPEN = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;

// KEYS[1] a client's open connections; ARGV[1] the lease, ARGV[2] its length in ms. Extends a
// lease still held (XX: a lease already dropped is not brought back).
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;

type IpRedis = RedisClient & {
  ipLimitHit(n: number, ...args: (string | number)[]): Promise<number[]>;
  ipAuthFailures(key: string, record: string, windowMs: number): Promise<number[]>;
  ipConnectionOpen(key: string, lease: string, leaseMs: number, limit: number): Promise<number>;
  ipConnectionRenew(key: string, lease: string, leaseMs: number): Promise<number>;
};

/** IPv4-mapped IPv6 (`::ffff:1.2.3.4`) and plain IPv4 are the same client. */
export function normaliseIp(ip: string | undefined): string {
  if (!ip) return 'unknown';
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}

/**
 * The client every per-IP limit counts (§16): an IPv4 address; for IPv6 its /64, the smallest
 * network a subscriber is given, so that rotating through the addresses of one network does not
 * multiply the budget; an IPv4-mapped IPv6 address as its IPv4 address. A value that is not an
 * address (a proxy's odd X-Forwarded-For) is kept as given.
 */
export function ipLimitKey(ip: string | undefined): string {
  if (!ip) return 'unknown';
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.process(ip);
  } catch {
    return ip;
  }
  if (addr.kind() === 'ipv4') return addr.toString();
  const network = new ipaddr.IPv6([...(addr as ipaddr.IPv6).parts.slice(0, 4), 0, 0, 0, 0]);
  return `${network.toString()}/64`;
}

@Injectable()
export class IpRequestLimiter {
  constructor(@Inject(REDIS) private readonly redis: RedisClient) {
    if (!(redis as unknown as Partial<IpRedis>).ipLimitHit) {
      redis.defineCommand('ipLimitHit', { lua: HIT });
    }
  }

  /** Counts one request from `ip` against every policy, atomically, and reports each one. */
  async hit(ip: string, policies: IpPolicy[]): Promise<IpPolicyState[]> {
    const keys = policies.map((p) => `ipl:{ip:${ipLimitKey(ip)}}:${p.name}`);
    const raw = await (this.redis as unknown as IpRedis).ipLimitHit(
      keys.length,
      ...keys,
      ...policies.map((p) => p.windowSeconds * 1000),
    );
    return policies.map((policy, i) => {
      const count = raw[i * 2];
      return {
        policy,
        count,
        remaining: Math.max(0, policy.limit - count),
        resetSeconds: Math.max(1, Math.ceil(raw[i * 2 + 1] / 1000)),
        exceeded: count > policy.limit,
      };
    });
  }
}

export interface AuthFailureState {
  failures: number;
  blocked: boolean;
  /** Seconds until the window that started at the first failure ends. */
  retryAfter: number;
}

/**
 * Failed authentications per client IP, shared by the send API, the SMTP relay and login: more
 * than 20 within 15 minutes of the first failure block the IP until that window ends.
 */
@Injectable()
export class AuthFailureLimiter {
  constructor(@Inject(REDIS) private readonly redis: RedisClient) {}

  /** Counts one failed authentication from `ip`. */
  recordFailure(ip: string): Promise<AuthFailureState> {
    return this.run(ip, '1');
  }

  /** Whether `ip` is currently blocked, without counting anything. */
  state(ip: string): Promise<AuthFailureState> {
    return this.run(ip, '0');
  }

  /** Takes back a failure recorded ahead of a check that then succeeded (login). */
  withdrawFailure(ip: string): Promise<AuthFailureState> {
    return this.run(ip, '-1');
  }

  /** The 429 a blocked IP gets (the relay maps it to `421 ...` and closes). */
  static error(state: AuthFailureState): RateLimitedError {
    return new RateLimitedError(TOO_MANY_FAILED_ATTEMPTS_MESSAGE, state.retryAfter);
  }

  /** Ends `ip`'s window now (the operator's `unlock-login --ip`). */
  async reset(ip: string): Promise<void> {
    await this.redis.del(`af:{ip:${ipLimitKey(ip)}}`);
  }

  private async run(ip: string, record: FailureOp): Promise<AuthFailureState> {
    const { failures, retryAfter } = await countFailures(
      this.redis,
      `af:{ip:${ipLimitKey(ip)}}`,
      record,
      AUTH_FAILURE_WINDOW_SECONDS,
    );
    return { failures, blocked: failures > AUTH_FAILURE_LIMIT, retryAfter };
  }
}

/** Record a failure, read the count, withdraw a recorded failure. */
export type FailureOp = '1' | '0' | '-1';

/**
 * One failure window in Redis: counts a failure (`op` '1'), reads the count ('0') or withdraws
 * one ('-1'); the window starts at the first failure and ends `windowSeconds` later, whatever
 * happens after.
 */
export async function countFailures(
  redis: RedisClient,
  key: string,
  op: FailureOp,
  windowSeconds: number,
): Promise<{ failures: number; retryAfter: number }> {
  const r = redis as unknown as Partial<IpRedis>;
  if (!r.ipAuthFailures) redis.defineCommand('ipAuthFailures', { numberOfKeys: 1, lua: FAILURES });
  const [failures, ttl] = await (redis as unknown as IpRedis).ipAuthFailures(
    key,
    op,
    windowSeconds * 1000,
  );
  // A read with no window yet answers ttl -2; the retry figure only matters when blocked.
  return { failures, retryAfter: Math.max(1, Math.ceil(ttl / 1000)) };
}

/** How long a connection's lease lasts unless renewed; renewed every third of it while open. */
export const CONNECTION_LEASE_MS = 90_000;

/** One open connection counted by IpConnectionLimiter. */
export interface ConnectionLease {
  key: string;
  member: string;
}

/**
 * Connections one client address holds open at once, across replicas (the inbound port, §16). Each
 * open connection is a lease in Redis that this process renews while the connection lasts and
 * drops when it closes; a lease of a process that died ends by itself within CONNECTION_LEASE_MS.
 */
@Injectable()
export class IpConnectionLimiter implements OnModuleDestroy {
  /** Unique per process, so two replicas' leases never collide. */
  private readonly instance = randomBytes(6).toString('hex');
  private sequence = 0;
  private readonly open = new Set<ConnectionLease>();
  private timer?: NodeJS.Timeout;

  constructor(@Inject(REDIS) private readonly redis: RedisClient) {
    const r = redis as unknown as Partial<IpRedis>;
    if (!r.ipConnectionOpen)
      redis.defineCommand('ipConnectionOpen', { numberOfKeys: 1, lua: OPEN });
    if (!r.ipConnectionRenew) {
      redis.defineCommand('ipConnectionRenew', { numberOfKeys: 1, lua: RENEW });
    }
  }

  /**
   * Takes a lease for one more connection of `ip` under `scope` (the deployment and the port), or
   * answers null when the client already holds `limit` of them.
   */
  async acquire(scope: string, ip: string, limit: number): Promise<ConnectionLease | null> {
    const lease = {
      key: `ipc:{ip:${ipLimitKey(ip)}}:${scope}`,
      member: `${this.instance}:${++this.sequence}`,
    };
    const taken = await (this.redis as unknown as IpRedis).ipConnectionOpen(
      lease.key,
      lease.member,
      CONNECTION_LEASE_MS,
      limit,
    );
    if (!taken) return null;
    this.open.add(lease);
    this.timer ??= setInterval(() => void this.renew(), CONNECTION_LEASE_MS / 3).unref();
    return lease;
  }

  /** Ends a lease (the connection closed). */
  async release(lease: ConnectionLease): Promise<void> {
    if (!this.open.delete(lease)) return;
    if (this.open.size === 0) this.stopTimer();
    await this.redis.zrem(lease.key, lease.member);
  }

  onModuleDestroy(): void {
    this.stopTimer();
  }

  private stopTimer(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async renew(): Promise<void> {
    const leases = [...this.open];
    if (!leases.length) return;
    // One call per lease (each lease's key has its client's hash slot); the shared connection
    // pipelines them, per node on a cluster. A failed renewal is retried at the next tick; a lease
    // that ends meanwhile only frees a slot.
    const redis = this.redis as unknown as IpRedis;
    await Promise.all(
      leases.map((l) =>
        redis.ipConnectionRenew(l.key, l.member, CONNECTION_LEASE_MS).catch(() => undefined),
      ),
    );
  }
}
