// Failed logins per account (§16), after the OWASP authentication cheat sheet: a progressive delay
// per (account, client IP), so a guesser slows down only itself, and a ceiling per account across
// all IPs that a client IP which signed in to the account before passes. Nothing a stranger does
// locks the account's owner out for good: the delay never exceeds 15 minutes and belongs to the
// stranger's IP, and the ceiling spares the owner's known addresses. Counted per normalised email
// whether or not an account exists, so the answers do not tell which emails exist.
import { Inject, Injectable } from '@nestjs/common';
import { scanKeys, type RedisClient } from '../redis/redis-client';
import { REDIS } from '../redis/redis.module';
import { ipLimitKey } from './ip-limits';

/** Failures from one IP for one account that are free of delay. */
export const LOGIN_FREE_FAILURES = 3;
/** The delay after the last free failure, doubled at each further failure or refused attempt. */
export const LOGIN_FIRST_DELAY_SECONDS = 1;
export const LOGIN_MAX_DELAY_SECONDS = 15 * 60;
/** A pair's count is forgotten this long after its last delay ended. */
export const LOGIN_PAIR_MEMORY_SECONDS = 60 * 60;
/** Failures per account, across IPs, in the window that starts at the first one. */
export const ACCOUNT_FAILURE_CEILING = 100;
export const ACCOUNT_FAILURE_WINDOW_SECONDS = 60 * 60;

// KEYS[1] the (account, IP) pair: hash {n: failures, u: delayed until, ms}; KEYS[2] the account's
// failure count. ARGV[1] '1' when the IP signed in to the account before; then the settings.
// Answers {0, 0, previous u} when the attempt may be checked (both counted ahead of the check),
// {1, ms} when the pair's delay runs (the refused attempt doubles it), {2, ms} at the ceiling.
const BEGIN = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local free, first, max = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local ceiling, window, memory = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local n = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
local prev = tonumber(redis.call('HGET', KEYS[1], 'u') or '0')
local function count()
  n = n + 1
  local delay = 0
  if n >= free then delay = math.min(first * 2 ^ (n - free), max) end
  redis.call('HSET', KEYS[1], 'n', n, 'u', now + delay)
  redis.call('PEXPIRE', KEYS[1], delay + memory)
  return delay
end
if n >= free and now < prev then return {1, count()} end
local c = tonumber(redis.call('GET', KEYS[2]) or '0')
if c >= ceiling and ARGV[1] ~= '1' then return {2, redis.call('PTTL', KEYS[2])} end
count()
if redis.call('INCR', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], window) end
return {0, 0, prev}
`;

// KEYS as BEGIN. ARGV[1] 'success': the pair starts over and the account's count is withdrawn;
// 'undo' (the attempt could not be judged): both counts are withdrawn, the pair's delay restored
// to ARGV[2]. Neither creates a key.
const END = `
local c = tonumber(redis.call('GET', KEYS[2]) or '0')
if c > 0 then redis.call('DECR', KEYS[2]) end
if ARGV[1] == 'success' then
  redis.call('DEL', KEYS[1])
elseif redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HINCRBY', KEYS[1], 'n', -1)
  redis.call('HSET', KEYS[1], 'u', ARGV[2])
end
return 1
`;

type LoginRedis = RedisClient & {
  loginBegin(pair: string, account: string, ...args: (string | number)[]): Promise<number[]>;
  loginEnd(pair: string, account: string, op: string, prev: number): Promise<number>;
};

/** A login attempt the limits let through (to be checked), or the refusal and its wait. */
export type LoginAttempt =
  | { allowed: true; /** The pair's delay before this attempt, for `undo`. */ previous: number }
  | { allowed: false; reason: 'delay' | 'ceiling'; retryAfter: number };

@Injectable()
export class AccountFailureLimiter {
  private readonly redis: LoginRedis;

  constructor(@Inject(REDIS) redis: RedisClient) {
    const r = redis as unknown as Partial<LoginRedis>;
    if (!r.loginBegin) redis.defineCommand('loginBegin', { numberOfKeys: 2, lua: BEGIN });
    if (!r.loginEnd) redis.defineCommand('loginEnd', { numberOfKeys: 2, lua: END });
    this.redis = redis as unknown as LoginRedis;
  }

  /**
   * Judges an attempt at `account` (an opaque id of the normalised email) from `ip` and, when it
   * may go on, counts it as a failure ahead of the password check, so that concurrent attempts
   * cannot all pass a check made before any of them failed. `knownIp`: the IP signed in to the
   * account before (it passes the ceiling).
   */
  async begin(account: string, ip: string, knownIp: boolean): Promise<LoginAttempt> {
    const [verdict, ms, previous] = await this.redis.loginBegin(
      loginPairKey(account, ip),
      accountKey(account),
      knownIp ? '1' : '0',
      LOGIN_FREE_FAILURES,
      LOGIN_FIRST_DELAY_SECONDS * 1000,
      LOGIN_MAX_DELAY_SECONDS * 1000,
      ACCOUNT_FAILURE_CEILING,
      ACCOUNT_FAILURE_WINDOW_SECONDS * 1000,
      LOGIN_PAIR_MEMORY_SECONDS * 1000,
    );
    if (verdict === 0) return { allowed: true, previous };
    return {
      allowed: false,
      reason: verdict === 1 ? 'delay' : 'ceiling',
      retryAfter: Math.max(1, Math.ceil(ms / 1000)),
    };
  }

  /** The password was right: the pair starts over and the attempt is no failure. */
  async succeeded(account: string, ip: string): Promise<void> {
    await this.redis.loginEnd(loginPairKey(account, ip), accountKey(account), 'success', 0);
  }

  /** The attempt could not be judged (database down): it is no failure. */
  async undo(account: string, ip: string, attempt: { previous: number }): Promise<void> {
    await this.redis.loginEnd(
      loginPairKey(account, ip),
      accountKey(account),
      'undo',
      attempt.previous,
    );
  }

  /** Ends the account's ceiling window and every delay of its pairs (`unlock-login --email`). */
  async reset(account: string): Promise<void> {
    const keys: string[] = [accountKey(account)];
    for await (const found of scanKeys(this.redis, `lf:{acct:${account}}:ip:*`))
      keys.push(...found);
    // One hash tag: one slot, so one DEL on a cluster too.
    await this.redis.del(...keys);
  }
}

// One hash tag per account: the pair and the account count sit in one slot, for one script.
/** The Redis hash of an (account, IP) pair: `n` failures, delayed until `u` (Redis time, ms). */
export function loginPairKey(account: string, ip: string): string {
  return `lf:{acct:${account}}:ip:${ipLimitKey(ip)}`;
}

function accountKey(account: string): string {
  return `lf:{acct:${account}}:all`;
}
