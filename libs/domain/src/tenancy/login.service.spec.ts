// The bookkeeping of a login against its failure windows, with in-memory windows and a
// stand-in for scrypt (the e2e spec runs the real ones).
import { FieldCipher, configureFieldEncryption } from '../crypto/field-encryption';
import type { AccountFailureLimiter, LoginAttempt } from '../limits/account-limits';
import type { AuthFailureLimiter, AuthFailureState } from '../limits/ip-limits';
import type { LoginIpRepository } from './login-ip.repository';
import { LoginService, loginAccountId } from './login.service';
import type { UserService } from './user.service';

jest.mock('../crypto/passwords', () => ({
  DUMMY_PASSWORD_HASH: 'dummy',
  verifyPassword: jest.fn(async (password: string, stored: string) => stored === `h:${password}`),
  needsRehash: (stored: string) => stored.startsWith('h:old'),
  hashPassword: async (password: string) => `h:${password}`,
}));

/** A failure window as the Redis script keeps it: refused above `limit`, withdrawals floor at 0. */
class Window {
  readonly counts = new Map<string, number>();
  constructor(private readonly limit: number) {}
  private state(id: string): AuthFailureState {
    const failures = this.counts.get(id) ?? 0;
    return { failures, blocked: failures > this.limit, retryAfter: 900 };
  }
  read = async (id: string) => this.state(id);
  record = async (id: string) => {
    this.counts.set(id, (this.counts.get(id) ?? 0) + 1);
    return this.state(id);
  };
  withdraw = async (id: string) => {
    this.counts.set(id, Math.max(0, (this.counts.get(id) ?? 0) - 1));
    return this.state(id);
  };
  total = () => [...this.counts.values()].reduce((a, b) => a + b, 0);
}

/** The account limits as their script keeps them, without the clock: a pair over 3 is delayed. */
class AccountLimits {
  readonly pairs = new Map<string, number>();
  readonly accounts = new Map<string, number>();
  constructor(private readonly ceiling: number) {}
  begin = async (account: string, ip: string, known: boolean): Promise<LoginAttempt> => {
    const pair = `${account}|${ip}`;
    const n = this.pairs.get(pair) ?? 0;
    if (n >= 3) {
      this.pairs.set(pair, n + 1);
      return { allowed: false, reason: 'delay', retryAfter: 2 ** (n - 2) };
    }
    if ((this.accounts.get(account) ?? 0) >= this.ceiling && !known)
      return { allowed: false, reason: 'ceiling', retryAfter: 3600 };
    this.pairs.set(pair, n + 1);
    this.accounts.set(account, (this.accounts.get(account) ?? 0) + 1);
    return { allowed: true, previous: 0 };
  };
  succeeded = async (account: string, ip: string) => {
    this.pairs.delete(`${account}|${ip}`);
    this.accounts.set(account, (this.accounts.get(account) ?? 1) - 1);
  };
  undo = async (account: string, ip: string) => {
    this.pairs.set(`${account}|${ip}`, (this.pairs.get(`${account}|${ip}`) ?? 1) - 1);
    this.accounts.set(account, (this.accounts.get(account) ?? 1) - 1);
  };
  total = () => [...this.accounts.values()].reduce((a, b) => a + b, 0);
}

function setup(users: Record<string, string>, ceiling = 100) {
  const ip = new Window(20);
  const acct = new AccountLimits(ceiling);
  const replaced: string[] = [];
  const known = new Set<string>();
  const userService = {
    findForLogin: jest.fn(async (email: string) =>
      users[email] ? { id: email, passwordHash: users[email] } : null,
    ),
    issueToken: async () => ({ accessToken: 'at_x', expiresAt: new Date() }),
    replacePasswordHash: async (_id: string, _prev: string, next: string) => {
      replaced.push(next);
      return true;
    },
  };
  const loginIps = {
    isKnown: jest.fn(async (userId: string, at: string) => known.has(`${userId}|${at}`)),
    recordSuccess: jest.fn(async (userId: string, at: string) => {
      known.add(`${userId}|${at}`);
    }),
  };
  const service = new LoginService(
    userService as unknown as UserService,
    {
      state: ip.read,
      recordFailure: ip.record,
      withdrawFailure: ip.withdraw,
    } as unknown as AuthFailureLimiter,
    acct as unknown as AccountFailureLimiter,
    loginIps as unknown as LoginIpRepository,
  );
  return { service, ip, acct, userService, replaced, loginIps };
}

beforeAll(() => configureFieldEncryption(new FieldCipher(Buffer.alloc(32, 7))));

describe('LoginService', () => {
  it('a success withdraws only its own count: earlier failures stay in the IP and account windows', async () => {
    const { service, ip, acct } = setup({ 'a@x.io': 'h:right password' });
    for (let i = 0; i < 2; i++) {
      await expect(service.login('a@x.io', 'wrong', '1.2.3.4')).rejects.toMatchObject({
        code: 'E_UNAUTHORIZED',
      });
    }
    await service.login('a@x.io', 'right password', '1.2.3.4');
    expect(ip.total()).toBe(2);
    expect(acct.total()).toBe(2);
    // The pair starts over.
    expect(acct.pairs.size).toBe(0);
  });

  it('a delayed pair does not charge the IP; the IP keeps the attempt that passes its limit', async () => {
    const { service, ip, acct } = setup({});
    for (let i = 0; i < 3; i++) {
      await expect(service.login('v@x.io', 'wrong', '10.0.0.1')).rejects.toMatchObject({
        code: 'E_UNAUTHORIZED',
      });
    }
    // The fourth attempt from the pair waits, and each further one waits longer.
    const waits: number[] = [];
    for (let i = 0; i < 3; i++) {
      const err = await service.login('v@x.io', 'wrong', '10.0.0.1').catch((e) => e);
      expect(err).toMatchObject({ code: 'E_TOO_MANY_REQUESTS' });
      waits.push(err.retryAfter);
    }
    expect(waits).toEqual([2, 4, 8]);
    expect(ip.counts.get('10.0.0.1')).toBe(3);
    expect(acct.total()).toBe(3);

    for (let i = 0; i < 20; i++) {
      await expect(service.login(`u${i}@x.io`, 'wrong', '10.9.9.9')).rejects.toMatchObject({
        code: 'E_UNAUTHORIZED',
      });
    }
    await expect(service.login('w@x.io', 'wrong', '10.9.9.9')).rejects.toMatchObject({
      code: 'E_TOO_MANY_REQUESTS',
    });
    // 21 in the IP window: the send API and the relay (failures > 20) refuse this IP too.
    expect(ip.counts.get('10.9.9.9')).toBe(21);
    // w@x.io was not judged, so its count was withdrawn.
    expect(acct.accounts.get(loginAccountId('w@x.io'))).toBe(0);
  });

  it('at the ceiling, only an IP that signed in to the account before gets through', async () => {
    const { service, ip, loginIps } = setup({ 'k@x.io': 'h:right password' }, 5);
    await service.login('k@x.io', 'right password', '192.0.2.1');
    expect(loginIps.recordSuccess).toHaveBeenCalledWith('k@x.io', '192.0.2.1', expect.any(Date));
    for (let i = 0; i < 5; i++) {
      await expect(service.login('k@x.io', 'wrong', `10.0.0.${i}`)).rejects.toMatchObject({
        code: 'E_UNAUTHORIZED',
      });
    }
    await expect(service.login('k@x.io', 'right password', '198.51.100.1')).rejects.toMatchObject({
      code: 'E_TOO_MANY_REQUESTS',
      retryAfter: 3600,
    });
    expect(ip.counts.get('198.51.100.1')).toBe(0);
    await expect(service.login('k@x.io', 'right password', '192.0.2.1')).resolves.toMatchObject({
      accessToken: 'at_x',
    });
    // An unknown email at its ceiling is refused like an existing one.
    const ghost = setup({}, 1);
    await expect(ghost.service.login('g@x.io', 'wrong', '10.0.0.1')).rejects.toMatchObject({
      code: 'E_UNAUTHORIZED',
    });
    await expect(ghost.service.login('g@x.io', 'wrong', '10.0.0.2')).rejects.toMatchObject({
      code: 'E_TOO_MANY_REQUESTS',
    });
  });

  it('an attempt that could not be judged is no failure', async () => {
    const { service, ip, acct, userService } = setup({});
    userService.findForLogin.mockRejectedValueOnce(new Error('Connection terminated'));
    await expect(service.login('a@x.io', 'pw', '1.1.1.1')).rejects.toThrow('Connection terminated');
    expect(ip.total()).toBe(0);
    expect(acct.total()).toBe(0);
  });

  it('upgrades an older hash on success, and a failed upgrade does not fail the login', async () => {
    const { service, replaced, userService } = setup({ 'o@x.io': 'h:old pass' });
    await service.login('o@x.io', 'old pass', '1.1.1.1');
    expect(replaced).toEqual(['h:old pass']);
    const failing = setup({ 'o@x.io': 'h:old pass' });
    failing.userService.replacePasswordHash = async () => {
      throw new Error('Connection terminated');
    };
    const warn = jest.spyOn(
      (failing.service as unknown as { logger: { warn: () => void } }).logger,
      'warn',
    );
    warn.mockImplementation(() => undefined);
    await expect(failing.service.login('o@x.io', 'old pass', '1.1.1.1')).resolves.toMatchObject({
      accessToken: 'at_x',
    });
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ msg: 'could not upgrade a password hash' }),
    );
    expect(userService.findForLogin).toHaveBeenCalledTimes(1);
  });
});
