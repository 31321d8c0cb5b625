// Email and password login (§3, §16), limited per client IP, per (account, IP) and per account.
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
import { AuthFailureLimiter, TOO_MANY_FAILED_ATTEMPTS_MESSAGE } from '../limits/ip-limits';
import { LoginIpRepository } from './login-ip.repository';
import { UserService } from './user.service';

/**
 * The per-account counter's id for an email: a keyed hash of the normalised email, so Redis holds
 * no address and an address cannot be recovered from a key by guessing.
 */
export function loginAccountId(email: string): string {
  return fieldCipher().blindIndex(`login:${normaliseEmail(email)}`);
}

@Injectable()
export class LoginService {
  private readonly logger = new Logger(LoginService.name);

  constructor(
    private readonly users: UserService,
    private readonly ipFailures: AuthFailureLimiter,
    private readonly accountFailures: AccountFailureLimiter,
    private readonly loginIps: LoginIpRepository,
  ) {}

  /**
   * A 24-hour access token for a right email and password from `clientIp`. A counter outage is
   * thrown (503 at the edge): login never runs without its limits.
   *
   * Each attempt is counted as a failure (in the IP's §8 window, for the (account, IP) pair and
   * for the account) BEFORE its password is checked, and the counts are withdrawn when it turns
   * out right: concurrent attempts cannot all pass a check made before any of them failed. An
   * attempt that a limit refuses is answered 429 unchecked. At the account's ceiling, an IP that
   * signed in to the account before still gets through (one database read, only then).
   */
  async login(
    email: string,
    password: string,
    clientIp: string,
    now = new Date(),
  ): Promise<{ accessToken: string; expiresAt: Date }> {
    const account = loginAccountId(email);
    // A caller already refused costs one Redis read: no count, no database, no scrypt.
    const before = await this.ipFailures.state(clientIp);
    if (before.blocked) throw AuthFailureLimiter.error(before);
    const [ip, first] = await Promise.all([
      this.ipFailures.recordFailure(clientIp),
      this.accountFailures.begin(account, clientIp, false),
    ]);
    if (ip.blocked) {
      // The IP window keeps the attempt (§8: the 21st failure blocks the IP for the send API too);
      // the account was not judged, so it does not pay for it.
      if (first.allowed)
        await this.withdraw(() => this.accountFailures.undo(account, clientIp, first));
      throw AuthFailureLimiter.error(ip);
    }

    let user: { id: string; passwordHash: string } | null = null;
    let attempt = first;
    if (!attempt.allowed && attempt.reason === 'ceiling') {
      try {
        user = await this.users.findForLogin(email);
        if (user && (await this.loginIps.isKnown(user.id, clientIp)))
          attempt = await this.accountFailures.begin(account, clientIp, true);
      } catch (err) {
        await this.withdraw(() => this.ipFailures.withdrawFailure(clientIp));
        throw err;
      }
    }
    if (!attempt.allowed) {
      await this.withdraw(() => this.ipFailures.withdrawFailure(clientIp));
      throw new RateLimitedError(TOO_MANY_FAILED_ATTEMPTS_MESSAGE, attempt.retryAfter);
    }

    let ok: boolean;
    try {
      user ??= await this.users.findForLogin(email);
      // An unknown email pays the same scrypt as a known one.
      ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
    } catch (err) {
      // Not judged (database down, hashing queue full): the attempt is no failure.
      const counted = attempt;
      await Promise.all([
        this.withdraw(() => this.ipFailures.withdrawFailure(clientIp)),
        this.withdraw(() => this.accountFailures.undo(account, clientIp, counted)),
      ]);
      throw err;
    }
    if (!user || !ok) throw new InvalidCredentialsError();

    await Promise.all([
      this.withdraw(() => this.ipFailures.withdrawFailure(clientIp)),
      this.withdraw(() => this.accountFailures.succeeded(account, clientIp)),
      this.loginIps
        .recordSuccess(user.id, clientIp, now)
        .catch((err: Error) =>
          this.logger.warn({ msg: 'could not record a sign-in address', err: err.message }),
        ),
    ]);
    if (needsRehash(user.passwordHash))
      await this.upgradeHash(user.id, user.passwordHash, password);
    return this.users.issueToken(user.id, now);
  }

  /** The operator's unlock: ends the account's ceiling and delays (and the IP's window, when given). */
  async unlock(input: { email?: string; ip?: string }): Promise<void> {
    if (input.email !== undefined) await this.accountFailures.reset(loginAccountId(input.email));
    if (input.ip !== undefined) await this.ipFailures.reset(input.ip);
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
