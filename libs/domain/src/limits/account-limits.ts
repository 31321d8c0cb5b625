// Failed logins per account (§16): after 10 failures within 15 minutes of the first, the account
// is refused from any IP until that window ends. Counted per normalised email whether or not an
// account exists, so the answers do not tell which emails exist.
import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { REDIS } from '../redis/redis.module';
import { AuthFailureState, countFailures, FailureOp } from './ip-limits';

export const ACCOUNT_FAILURE_LIMIT = 10;
export const ACCOUNT_FAILURE_WINDOW_SECONDS = 15 * 60;

@Injectable()
export class AccountFailureLimiter {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  /** Counts one failed login for `account` (an opaque id of the normalised email). */
  recordFailure(account: string): Promise<AuthFailureState> {
    return this.run(account, '1');
  }

  /** Whether `account` is refused now, without counting anything. */
  state(account: string): Promise<AuthFailureState> {
    return this.run(account, '0');
  }

  /** Takes back a failure recorded ahead of a check that then succeeded. */
  withdrawFailure(account: string): Promise<AuthFailureState> {
    return this.run(account, '-1');
  }

  /** Ends the account's window now (the operator's `unlock-login --email`). */
  async reset(account: string): Promise<void> {
    await this.redis.del(key(account));
  }

  private async run(account: string, op: FailureOp): Promise<AuthFailureState> {
    const { failures, retryAfter } = await countFailures(
      this.redis,
      key(account),
      op,
      ACCOUNT_FAILURE_WINDOW_SECONDS,
    );
    return { failures, blocked: failures > ACCOUNT_FAILURE_LIMIT, retryAfter };
  }
}

function key(account: string): string {
  return `af:{acct:${account}}`;
}
