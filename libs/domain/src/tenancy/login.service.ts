// Email and password login (§3, §16), limited per client IP and per account.
import { Injectable, Logger } from '@nestjs/common';
import { fieldCipher, normaliseEmail } from '../crypto/field-encryption';
import {
  DUMMY_PASSWORD_HASH,
  hashPassword,
  needsRehash,
  verifyPassword,
} from '../crypto/passwords';
import { InvalidCredentialsError, RateLimitedError } from '../errors/domain-errors';
import { AccountFailureLimiter } from '../limits/account-limits';
import {
  AuthFailureLimiter,
  AuthFailureState,
  TOO_MANY_FAILED_ATTEMPTS_MESSAGE,
} from '../limits/ip-limits';
import { UserService } from './user.service';

/**
 * The per-account counter's id for an email: a keyed hash of the normalised email, so Redis holds
 * no address and an address cannot be recovered from a key by guessing.
 */
export function loginAccountId(email: string): string {
  return fieldCipher().blindIndex(`login:${normaliseEmail(email)}`);
}

function refuseIfBlocked(states: AuthFailureState[]): void {
  const blocked = states.filter((s) => s.blocked);
  if (blocked.length) {
    throw new RateLimitedError(
      TOO_MANY_FAILED_ATTEMPTS_MESSAGE,
      Math.max(...blocked.map((s) => s.retryAfter)),
    );
  }
}

@Injectable()
export class LoginService {
  private readonly logger = new Logger(LoginService.name);

  constructor(
    private readonly users: UserService,
    private readonly ipFailures: AuthFailureLimiter,
    private readonly accountFailures: AccountFailureLimiter,
  ) {}

  /**
   * A 24-hour access token for a right email and password from `clientIp`. A counter outage is
   * thrown (503 at the edge): login never runs without its limits.
   *
   * Each attempt is counted as a failure in both windows BEFORE its password is checked, and the
   * count is withdrawn when it turns out right: concurrent attempts cannot all pass a check made
   * before any of them failed, so no more than 20 (per IP) or 10 (per account) passwords are ever
   * tried per window. An attempt that the count puts over a limit is refused unchecked (429).
   */
  async login(
    email: string,
    password: string,
    clientIp: string,
    now = new Date(),
  ): Promise<{ accessToken: string; expiresAt: Date }> {
    const account = loginAccountId(email);
    // A caller already refused costs one Redis read: no count, no database, no scrypt.
    refuseIfBlocked(
      await Promise.all([this.ipFailures.state(clientIp), this.accountFailures.state(account)]),
    );
    const counted = await Promise.all([
      this.ipFailures.recordFailure(clientIp),
      this.accountFailures.recordFailure(account),
    ]);
    const [ip, acct] = counted;
    if (ip.blocked || acct.blocked) {
      // The window that refused keeps the attempt (§8: the 21st failure blocks the IP for the send
      // API too); the other one was not judged, so it does not pay for it.
      if (!ip.blocked) await this.withdraw(() => this.ipFailures.withdrawFailure(clientIp));
      if (!acct.blocked) await this.withdraw(() => this.accountFailures.withdrawFailure(account));
      refuseIfBlocked(counted);
    }

    let user: { id: string; passwordHash: string } | null;
    let ok: boolean;
    try {
      user = await this.users.findForLogin(email);
      // An unknown email pays the same scrypt as a known one.
      ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
    } catch (err) {
      // Not judged (database down, hashing queue full): the attempt is no failure.
      await this.withdrawBoth(clientIp, account);
      throw err;
    }
    if (!user || !ok) throw new InvalidCredentialsError();

    await this.withdrawBoth(clientIp, account);
    if (needsRehash(user.passwordHash))
      await this.upgradeHash(user.id, user.passwordHash, password);
    return this.users.issueToken(user.id, now);
  }

  /** The operator's unlock: ends the account's failure window (and the IP's, when given). */
  async unlock(input: { email?: string; ip?: string }): Promise<void> {
    if (input.email !== undefined) await this.accountFailures.reset(loginAccountId(input.email));
    if (input.ip !== undefined) await this.ipFailures.reset(input.ip);
  }

  private async withdrawBoth(clientIp: string, account: string): Promise<void> {
    await Promise.all([
      this.withdraw(() => this.ipFailures.withdrawFailure(clientIp)),
      this.withdraw(() => this.accountFailures.withdrawFailure(account)),
    ]);
  }

  /** A withdrawal that fails leaves one failure too many in a window: logged, never fatal. */
  private async withdraw(op: () => Promise<unknown>): Promise<void> {
    await op().catch((err: Error) =>
      this.logger.warn({ msg: 'could not withdraw a counted login attempt', err: err.message }),
    );
  }

  private async upgradeHash(userId: string, previous: string, password: string): Promise<void> {
    try {
      await this.users.replacePasswordHash(userId, previous, await hashPassword(password));
    } catch (err) {
      // The login itself succeeded; the upgrade is tried again at the next one.
      this.logger.warn({ msg: 'could not upgrade a password hash', err: (err as Error).message });
    }
  }
}
