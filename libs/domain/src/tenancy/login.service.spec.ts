// The bookkeeping of a login against its two failure windows, with in-memory windows and a
// stand-in for scrypt (the e2e spec runs the real ones).
import { FieldCipher, configureFieldEncryption } from '../crypto/field-encryption';
import type { AccountFailureLimiter } from '../limits/account-limits';
import type { AuthFailureLimiter, AuthFailureState } from '../limits/ip-limits';
import { LoginService } from './login.service';
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

function setup(users: Record<string, string>) {
  const ip = new Window(20);
  const acct = new Window(10);
  const replaced: string[] = [];
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
  const service = new LoginService(
    userService as unknown as UserService,
    {
      state: ip.read,
      recordFailure: ip.record,
      withdrawFailure: ip.withdraw,
    } as unknown as AuthFailureLimiter,
    {
      state: acct.read,
      recordFailure: acct.record,
      withdrawFailure: acct.withdraw,
    } as unknown as AccountFailureLimiter,
  );
  return { service, ip, acct, userService, replaced };
}

beforeAll(() => configureFieldEncryption(new FieldCipher(Buffer.alloc(32, 7))));

describe('LoginService', () => {
  it('a success withdraws only its own count: earlier failures stay in both windows', async () => {
    const { service, ip, acct } = setup({ 'a@x.io': 'h:right password' });
    for (let i = 0; i < 3; i++) {
      await expect(service.login('a@x.io', 'wrong', '1.2.3.4')).rejects.toMatchObject({
        code: 'E_UNAUTHORIZED',
      });
    }
    await service.login('a@x.io', 'right password', '1.2.3.4');
    expect(ip.total()).toBe(3);
    expect(acct.total()).toBe(3);
  });

  it('an account refusal does not charge the IP; the IP keeps the attempt that passes its limit', async () => {
    const { service, ip, acct } = setup({});
    for (let i = 0; i < 10; i++) {
      await expect(service.login('v@x.io', 'wrong', `10.0.0.${i}`)).rejects.toMatchObject({
        code: 'E_UNAUTHORIZED',
      });
    }
    await expect(service.login('v@x.io', 'wrong', '10.0.1.1')).rejects.toMatchObject({
      code: 'E_TOO_MANY_REQUESTS',
    });
    expect(ip.counts.get('10.0.1.1') ?? 0).toBe(0);
    // The window that refused keeps the attempt; from now on it refuses at the first read.
    expect(acct.total()).toBe(11);

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
    // v@x.io and u0..u19 hold failures; w@x.io was not judged, so its count was withdrawn.
    expect([...acct.counts.values()].filter((n) => n > 0)).toHaveLength(21);
    await expect(service.login('w@x.io', 'wrong', '10.9.9.9')).rejects.toMatchObject({
      code: 'E_TOO_MANY_REQUESTS',
    });
    expect(ip.counts.get('10.9.9.9')).toBe(21);
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
