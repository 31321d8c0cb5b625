// Login hardening (§16): failed logins are limited per client IP (the §8 failed-auth window shared
// with the send API), by a progressive delay per (account, IP) and by a per-account ceiling that
// a known address passes; passwords need 12 characters; scrypt parameters travel in
// the stored hash and an older hash is replaced at the next successful login. Client addresses
// come from X-Forwarded-For (TRUST_PROXY=true), one fresh address per test; every email is fresh,
// so counters left in Redis by earlier runs never meet this run's accounts.
import { INestApplication } from '@nestjs/common';
import nodeCrypto from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import {
  loginAccountId,
  loginPairKey,
  PASSWORD_PARAMS,
  REDIS,
  type RedisClient,
  setPasswordParamsForTests,
  UserService,
  ValidationFailedError,
} from '@app/domain';
import { runAdmin } from '../../apps/api/src/cli';
import { createTestApp } from '../support/app';
import { createSession, Session } from '../support/session';
import { leastLeftMs } from '../support/windows';
import { TEST_PASSWORD_PARAMS } from '../support/setup';

const LOGIN = '/api/v1/auth/login';
const PASSWORD = 'correct horse battery';
const TOO_MANY = 'Too many failed attempts, please try again later';

/** A random private address: one of 16 million, so runs within the same 15 minutes never meet. */
function freshIp(): string {
  const octet = () => nodeCrypto.randomInt(0, 256);
  return `10.${octet()}.${octet()}.${nodeCrypto.randomInt(1, 255)}`;
}

function freshEmail(tag: string): string {
  return `${tag}-${nodeCrypto.randomUUID()}@example.com`;
}

describe('Login limits and password storage (§16)', () => {
  let app: INestApplication;
  let s: Session;
  let ds: DataSource;

  beforeAll(async () => {
    process.env.TRUST_PROXY = 'true';
    app = await createTestApp();
    s = await createSession(app);
    ds = app.get(DataSource);
  });
  afterAll(() => app.close());

  const login = (ip: string, email: string, password: string) =>
    request(app.getHttpServer()).post(LOGIN).set('X-Forwarded-For', ip).send({ email, password });

  async function newUser(tag: string, password = PASSWORD): Promise<string> {
    const email = freshEmail(tag);
    await app.get(UserService).createUser({
      email,
      password,
      organizationId: s.org.id,
      role: 'owner',
    });
    return email;
  }

  const storedHash = async (email: string): Promise<string> =>
    (await ds.query(`SELECT password_hash FROM users WHERE email = $1`, [email]))[0].password_hash;

  function expectTooMany(res: request.Response, maxSeconds = 900) {
    expect(res.status).toBe(429);
    expect(res.body).toEqual({
      success: false,
      message: TOO_MANY,
      code: 'E_TOO_MANY_REQUESTS',
      retryAfter: expect.any(Number),
    });
    expect(res.headers['retry-after']).toBe(String(res.body.retryAfter));
    expect(res.body.retryAfter).toBeGreaterThan(0);
    expect(res.body.retryAfter).toBeLessThanOrEqual(maxSeconds);
  }

  function expect401(res: request.Response) {
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      success: false,
      message: 'Invalid email or password',
      code: 'E_UNAUTHORIZED',
    });
  }

  it('answers the 21st failed login from one IP with 429 until the window ends, without hashing', async () => {
    const ip = freshIp();
    // Read before anything could open the IP's window.
    const opened = Date.now();
    const email = await newUser('ip-window');
    // Distinct emails: the per-account limit never comes into play here.
    for (let i = 1; i <= 20; i++)
      expect401(await login(ip, freshEmail('nobody'), 'wrong password'));
    expectTooMany(await login(ip, freshEmail('nobody'), 'wrong password'));

    // A blocked caller costs no scrypt, and its right password does not get it in either.
    const scrypt = jest.spyOn(nodeCrypto, 'scrypt');
    try {
      for (let i = 22; i <= 40; i++) {
        const res = await login(ip, freshEmail('nobody'), 'wrong password');
        expectTooMany(res);
        expect(res.body.retryAfter * 1000).toBeGreaterThanOrEqual(leastLeftMs(opened, 900_000));
      }
      expectTooMany(await login(ip, email, PASSWORD));
      expect(scrypt).not.toHaveBeenCalled();
      // The window is per IP: the same account from another address is fine (and hashed).
      await login(freshIp(), email, PASSWORD).expect(200);
      expect(scrypt).toHaveBeenCalledTimes(1);
    } finally {
      scrypt.mockRestore();
    }

    // The window is the §8 one the send API shares: refused before the body is looked at (an
    // empty body would otherwise be a 422).
    expectTooMany(
      await request(app.getHttpServer())
        .post('/api/v1/send')
        .set('X-Forwarded-For', ip)
        .set('X-API-Key', s.apiKey)
        .send({}),
    );

    // The operator can end the window early.
    await expect(runAdmin(['unlock-login', '--ip', ip, '--json'])).resolves.toEqual({
      unlocked: { email: null, ip },
    });
    await login(ip, email, PASSWORD).expect(200);
  });

  it("slows a stranger's IP down, never the user at an address that signed in before", async () => {
    const email = await newUser('stranger');
    const home = freshIp();
    await login(home, email, PASSWORD).expect(200);

    // 50 attempts from one address: 3 are checked, then each waits twice as long as the one before.
    const stranger = freshIp();
    const answers: request.Response[] = [];
    for (let i = 0; i < 50; i++) answers.push(await login(stranger, email, `wrong password ${i}`));
    answers.slice(0, 3).forEach(expect401);
    const waits = answers.slice(3).map((res) => {
      expectTooMany(res);
      return res.body.retryAfter as number;
    });
    expect(waits.slice(0, 5)).toEqual([2, 4, 8, 16, 32]);
    expect(waits.at(-1)).toBe(900);
    for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThanOrEqual(waits[i - 1]);
    // Its right password waits as well, unchecked.
    expectTooMany(await login(stranger, email, PASSWORD));

    // The user signs in from home, and from an address never seen before.
    await login(home, email, PASSWORD).expect(200);
    await login(freshIp(), email, PASSWORD).expect(200);
    // The email is normalised: another spelling is the same account and the same pair.
    expectTooMany(await login(stranger, email.toUpperCase(), PASSWORD));
    // The operator can end the delays early.
    await runAdmin(['unlock-login', '--email', email.toUpperCase(), '--json']);
    await login(stranger, email, PASSWORD).expect(200);
  });

  it('delays a pair after its third failure, and its wait once over admits the next check', async () => {
    const email = await newUser('typos');
    const ip = freshIp();
    const redis = app.get<RedisClient>(REDIS);
    const pair = loginPairKey(loginAccountId(email), ip);
    /** Redis's clock in ms, the one the pair's wait is kept in. */
    const redisNow = async () => {
      const [seconds, micros] = await redis.time();
      return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    };
    for (let i = 1; i <= 3; i++) expect401(await login(ip, email, `wrong password ${i}`));
    const scrypt = jest.spyOn(nodeCrypto, 'scrypt');
    const before = await redisNow();
    try {
      expectTooMany(await login(ip, email, PASSWORD), 2);
      expect(scrypt).not.toHaveBeenCalled();
    } finally {
      scrypt.mockRestore();
    }
    const after = await redisNow();
    // The refused attempt counted, and doubled the wait to 2 s from the moment it was judged.
    expect(await redis.hget(pair, 'n')).toBe('4');
    const until = Number(await redis.hget(pair, 'u'));
    expect(until).toBeGreaterThanOrEqual(before + 2000);
    expect(until).toBeLessThanOrEqual(after + 2000);
    // The wait ends (its end moved to now, as if the 2 s had passed): the password is checked.
    await redis.hset(pair, 'u', await redisNow());
    await login(ip, email, PASSWORD).expect(200);
    // A success starts the pair over: three more free failures.
    for (let i = 1; i <= 3; i++) expect401(await login(ip, email, `wrong again ${i}`));
    expectTooMany(await login(ip, email, PASSWORD));
  });

  it('refuses new addresses at the account ceiling of 100 failures an hour, and admits a known one', async () => {
    const email = await newUser('ceiling');
    const home = freshIp();
    // Read before anything could open the account's window (a sign-in counts, then withdraws).
    const opened = Date.now();
    await login(home, email, PASSWORD).expect(200);
    // 100 failures from 100 addresses: no pair is ever delayed.
    for (let batch = 0; batch < 10; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => login(freshIp(), email, `wrong password ${i}`)),
      );
      answers.forEach(expect401);
    }
    const scrypt = jest.spyOn(nodeCrypto, 'scrypt');
    try {
      const refused = await login(freshIp(), email, PASSWORD);
      expectTooMany(refused, 3600);
      expect(refused.body.retryAfter * 1000).toBeGreaterThanOrEqual(leastLeftMs(opened, 3_600_000));
      expect(scrypt).not.toHaveBeenCalled();
    } finally {
      scrypt.mockRestore();
    }
    // The address that signed in before gets through, and its failures still count.
    await login(home, email, PASSWORD).expect(200);
    expect401(await login(home, email, 'wrong password at home'));
    await login(home, email, PASSWORD).expect(200);
    // An address is known by its keyed hash: the table holds no address.
    const rows = await ds.query(
      `SELECT encode(ip_hash, 'hex') AS h FROM login_ips l JOIN users u ON u.id = l.user_id
        WHERE u.email = $1`,
      [email],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].h).toMatch(/^[0-9a-f]{64}$/);
  });

  it('counts an unknown email like an existing one, and concurrent attempts cannot overrun a pair', async () => {
    const email = freshEmail('ghost');
    const ip = freshIp();
    // All at once, from one address: each attempt is counted before it is checked, so exactly 3
    // are checked, however the requests interleave.
    const answers = await Promise.all(
      Array.from({ length: 25 }, (_, i) => login(ip, email, `wrong password ${i}`)),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(3).fill(401), ...Array(22).fill(429)]);
    for (const res of answers) {
      if (res.status === 401) expect401(res);
      else expectTooMany(res);
    }
    expectTooMany(await login(ip, email, PASSWORD));
    // Another address is not delayed.
    expect401(await login(freshIp(), email, PASSWORD));
  });

  it('answers a short wrong password 401, never revealing the password rule', async () => {
    const email = await newUser('short-login');
    expect401(await login(freshIp(), email, 'x'));
    expect401(await login(freshIp(), email, '12345678901'));
  });

  it('refuses to set a password under 12 characters (domain and admin CLI)', async () => {
    const email = freshEmail('short-pw');
    const short = 'abcdefghijk'; // 11 characters
    await expect(
      app.get(UserService).createUser({
        email,
        password: short,
        organizationId: s.org.id,
        role: 'member',
      }),
    ).rejects.toMatchObject({
      code: 'E_VALIDATION_ERROR',
      errors: [{ field: 'password', rule: 'minLength', message: expect.any(String) }],
    });
    // --password still works for scripts, with a warning on stderr (captured here).
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const cli = runAdmin([
      'create-user',
      '--email',
      email,
      '--password',
      short,
      '--org',
      s.org.id,
      '--role',
      'admin',
      '--json',
    ]);
    await expect(cli).rejects.toBeInstanceOf(ValidationFailedError);
    await expect(cli).rejects.toMatchObject({
      errors: [{ field: 'password', rule: 'minLength', message: expect.any(String) }],
    });
    expect(await ds.query(`SELECT id FROM users WHERE email = $1`, [email])).toEqual([]);

    // Twelve characters are enough.
    const out = await runAdmin([
      'create-user',
      '--email',
      email,
      '--password',
      'abcdefghijkl',
      '--org',
      s.org.id,
      '--role',
      'admin',
      '--json',
    ]);
    expect(out).toMatchObject({ user: { email } });
    const warnings = stderr.mock.calls.map(([text]) => String(text));
    stderr.mockRestore();
    expect(warnings).toEqual(
      Array(2).fill(expect.stringMatching(/^warning: --password is visible/)),
    );
    await login(freshIp(), email, 'abcdefghijkl').expect(200);
  });

  describe('at the production cost', () => {
    // The e2e tier hashes at a test cost (test/support/setup.ts); these tests use the real one.
    beforeAll(() => setPasswordParamsForTests(PASSWORD_PARAMS));
    afterAll(() => setPasswordParamsForTests(TEST_PASSWORD_PARAMS));

    it('stores scrypt N=2^17, r=8, p=1 in the hash', async () => {
      const email = await newUser('params');
      expect(await storedHash(email)).toMatch(
        /^scrypt\$ln=17,r=8,p=1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/,
      );
    });

    it('verifies an older hash with its own parameters and replaces it at the next login', async () => {
      const email = await newUser('legacy');
      // The format written before parameters were stored: Node's default scrypt (N=2^14).
      const salt = nodeCrypto.randomBytes(16);
      const legacy = `scrypt$${salt.toString('base64')}$${nodeCrypto.scryptSync(PASSWORD, salt, 64).toString('base64')}`;
      await ds.query(`UPDATE users SET password_hash = $2 WHERE email = $1`, [email, legacy]);

      expect401(await login(freshIp(), email, 'wrong password here'));
      expect(await storedHash(email)).toBe(legacy);

      await login(freshIp(), email, PASSWORD).expect(200);
      const upgraded = await storedHash(email);
      expect(upgraded).not.toBe(legacy);
      expect(upgraded).toMatch(/^scrypt\$ln=17,r=8,p=1\$/);
      await login(freshIp(), email, PASSWORD).expect(200);
      expect(await storedHash(email)).toBe(upgraded);
    });
  });
});
