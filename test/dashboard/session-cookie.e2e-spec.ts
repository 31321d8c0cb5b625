// The dashboard's session cookie over HTTP (§15): how login sets it, the header it needs (a
// cross-site form cannot send it), sliding idle expiry with its cap, and sign-out.
import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { Clock, UserService } from '@app/domain';
import { createTestApp } from '../support/app';
import { ManualClock } from '../support/clock';
import { createSession, Session } from '../support/session';

const LOGIN = '/api/v1/auth/login';
const LOGOUT = '/api/v1/auth/logout';
const ORGANIZATIONS = '/api/v1/auth/organizations';
const ME = '/api/v1/user/organization';
const CONTACTS = '/api/v1/user/contacts';
const PASSWORD = 'session-cookie-password';
const HOUR = 3600_000;
const DASHBOARD = { 'X-Requested-With': 'dashboard' };

/** The attributes of a Set-Cookie line, as a set: their order carries no meaning. */
function attributes(setCookie: string): { pair: string; attrs: string[] } {
  const [pair, ...attrs] = setCookie.split(/;\s*/);
  return { pair, attrs: attrs.sort() };
}

function setCookies(res: request.Response): string[] {
  const v = res.headers['set-cookie'] as unknown as string[] | string | undefined;
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

describe('dashboard session cookie', () => {
  let app: INestApplication;
  let server: ReturnType<INestApplication['getHttpServer']>;
  let s: Session;
  let email: string;
  const clock = new ManualClock(new Date());

  beforeAll(async () => {
    app = await createTestApp({ override: (b) => b.overrideProvider(Clock).useValue(clock) });
    server = app.getHttpServer();
    s = await createSession(app);
    email = `session-${randomUUID()}@example.com`;
    await app
      .get(UserService)
      .createUser({ email, password: PASSWORD, organizationId: s.org.id, role: 'owner' });
  });
  afterAll(() => app.close());

  /** Signs in as the dashboard does; answers the cookie header to send back and the token. */
  async function dashboardLogin(): Promise<{ cookie: string; token: string }> {
    clock.set(new Date());
    const res = await request(server)
      .post(LOGIN)
      .set(DASHBOARD)
      .send({ email, password: PASSWORD })
      .expect(200);
    const [line] = setCookies(res);
    return { cookie: line.split(';')[0], token: res.body.data.accessToken };
  }

  const expect401 = (res: request.Response) => {
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, code: 'E_UNAUTHORIZED_ACCESS' });
  };

  async function contactCount(): Promise<number> {
    return (await s.http.get(CONTACTS).expect(200)).body.meta.total;
  }

  async function expiresAt(token: string): Promise<{ expires: number; created: number }> {
    const [row] = await app
      .get(DataSource)
      .query(
        `SELECT expires_at, created_at FROM access_tokens WHERE token_hash = encode(sha256($1::bytea), 'hex')`,
        [token],
      );
    return { expires: row.expires_at.getTime(), created: row.created_at.getTime() };
  }

  it('login with the dashboard header sets exactly HttpOnly, SameSite=Strict, Path=/', async () => {
    clock.set(new Date());
    const res = await request(server)
      .post(LOGIN)
      .set(DASHBOARD)
      .send({ email, password: PASSWORD })
      .expect(200);
    const lines = setCookies(res);
    expect(lines).toHaveLength(1);
    expect(attributes(lines[0])).toEqual({
      pair: `mp_session=${res.body.data.accessToken}`,
      attrs: ['HttpOnly', 'Path=/', 'SameSite=Strict'],
    });
    // Any other client gets the token in the body only.
    const plain = await request(server).post(LOGIN).send({ email, password: PASSWORD }).expect(200);
    expect(setCookies(plain)).toEqual([]);
  });

  it('the cookie with the header authenticates, and lists the organizations', async () => {
    const { cookie } = await dashboardLogin();
    const orgs = await request(server).get(ORGANIZATIONS).set(DASHBOARD).set('Cookie', cookie);
    expect(orgs.status).toBe(200);
    expect(orgs.body.data).toEqual([expect.objectContaining({ id: s.org.id, role: 'owner' })]);
    const me = await request(server)
      .get(ME)
      .set(DASHBOARD)
      .set('Cookie', cookie)
      .set('X-Organization-Id', s.org.id)
      .expect(200);
    expect(me.body.data.credential.type).toBe('user');
    // Without the header the cookie is no credential, on reads too.
    expect401(await request(server).get(ORGANIZATIONS).set('Cookie', cookie));
    expect401(
      await request(server).get(ME).set('Cookie', cookie).set('X-Organization-Id', s.org.id),
    );
  });

  it('a cross-site form POST with the cookie is refused 401 and changes nothing', async () => {
    const { cookie } = await dashboardLogin();
    const before = await contactCount();
    // What a form on another origin makes the browser send: the cookie, a form body, no header.
    const form = await request(server)
      .post(CONTACTS)
      .set('Cookie', cookie)
      .set('Origin', 'https://evil.example')
      .type('form')
      .send('firstName=Mallory&lastName=Form');
    expect401(form);
    // Even with the organization header, and with a header value other than the dashboard's.
    for (const extra of [{}, { 'X-Requested-With': 'XMLHttpRequest' }]) {
      expect401(
        await request(server)
          .post(CONTACTS)
          .set('Cookie', cookie)
          .set('X-Organization-Id', s.org.id)
          .set(extra)
          .send({ firstName: 'Mallory', lastName: 'Json' }),
      );
    }
    expect(await contactCount()).toBe(before);

    await request(server)
      .post(CONTACTS)
      .set('Cookie', cookie)
      .set(DASHBOARD)
      .set('X-Organization-Id', s.org.id)
      .type('form')
      .send('firstName=Dashboard&lastName=User')
      .expect(201);
    expect(await contactCount()).toBe(before + 1);
  });

  it('is consulted only when neither X-API-Key nor Authorization is present (§3)', async () => {
    const { cookie } = await dashboardLogin();
    const withCookie = (t: request.Test) =>
      t.set(DASHBOARD).set('Cookie', cookie).set('X-Organization-Id', s.org.id);
    // A bad bearer value is not rescued by a good cookie.
    expect401(await withCookie(request(server).get(ME)).set('Authorization', 'Bearer garbage'));
    expect401(
      await withCookie(request(server).get(ME)).set('X-API-Key', 'bk_live_' + 'x'.repeat(40)),
    );
    // A good key wins over the cookie: the caller is the key.
    const keyed = await withCookie(request(server).get(ME)).set('X-API-Key', s.apiKey).expect(200);
    expect(keyed.body.data.credential.type).toBe('api_key');
    // The organizations route takes an access token only: a key beside the cookie is refused.
    expect401(await withCookie(request(server).get(ORGANIZATIONS)).set('X-API-Key', s.apiKey));
  });

  it('sign-out revokes the token and clears the cookie; the old cookie is then 401', async () => {
    const { cookie, token } = await dashboardLogin();
    const out = await request(server).post(LOGOUT).set(DASHBOARD).set('Cookie', cookie).expect(200);
    const [cleared] = setCookies(out);
    expect(attributes(cleared)).toEqual({
      pair: 'mp_session=',
      attrs: ['Expires=Thu, 01 Jan 1970 00:00:00 GMT', 'HttpOnly', 'Path=/', 'SameSite=Strict'],
    });
    expect401(await request(server).get(ORGANIZATIONS).set(DASHBOARD).set('Cookie', cookie));
    // Revoked for every use, not only in the cookie.
    expect401(await request(server).get(ORGANIZATIONS).set('Authorization', `Bearer ${token}`));
  });

  it('a sign-out without the header revokes nothing (a cross-site form cannot sign out)', async () => {
    const { cookie } = await dashboardLogin();
    await request(server).post(LOGOUT).set('Cookie', cookie).expect(200);
    await request(server).get(ORGANIZATIONS).set(DASHBOARD).set('Cookie', cookie).expect(200);
  });

  it('idle expiry slides with use, at most once a minute, up to 30 days after sign-in', async () => {
    const { cookie, token } = await dashboardLogin();
    const use = () => request(server).get(ORGANIZATIONS).set(DASHBOARD).set('Cookie', cookie);
    const { created } = await expiresAt(token);

    clock.advance(23 * HOUR);
    await use().expect(200);
    const slid = (await expiresAt(token)).expires;
    expect(slid).toBe(clock.now().getTime() + 24 * HOUR);
    // Within the minute: no write.
    clock.advance(30_000);
    await use().expect(200);
    expect((await expiresAt(token)).expires).toBe(slid);
    clock.advance(31_000);
    await use().expect(200);
    expect((await expiresAt(token)).expires).toBe(clock.now().getTime() + 24 * HOUR);

    // 46 hours after sign-in, past the 24 hours the token was issued for: still signed in.
    clock.advance(23 * HOUR);
    await use().expect(200);

    // Used every 23 hours, it still ends 30 days after it was issued.
    while (clock.now().getTime() + 23 * HOUR < created + 30 * 24 * HOUR) {
      clock.advance(23 * HOUR);
      await use().expect(200);
    }
    expect((await expiresAt(token)).expires).toBe(created + 30 * 24 * HOUR);
    clock.set(new Date(created + 30 * 24 * HOUR + 1000));
    expect401(await use());
  });

  it('left idle for 24 hours, the cookie is 401; a bearer token does not slide', async () => {
    const idle = await dashboardLogin();
    clock.advance(24 * HOUR + 60_000);
    expect401(await request(server).get(ORGANIZATIONS).set(DASHBOARD).set('Cookie', idle.cookie));

    const { token } = await dashboardLogin();
    const bearer = () => request(server).get(ORGANIZATIONS).set('Authorization', `Bearer ${token}`);
    clock.advance(23 * HOUR);
    await bearer().expect(200);
    clock.advance(2 * HOUR);
    expect401(await bearer());
  });

  describe('with an https PUBLIC_BASE_URL', () => {
    let secureApp: INestApplication;
    const saved = process.env.PUBLIC_BASE_URL;

    beforeAll(async () => {
      process.env.PUBLIC_BASE_URL = 'https://mail.example.test';
      secureApp = await createTestApp();
    });
    afterAll(async () => {
      await secureApp.close();
      if (saved === undefined) delete process.env.PUBLIC_BASE_URL;
      else process.env.PUBLIC_BASE_URL = saved;
    });

    it('the cookie is also Secure, under the __Host- prefix', async () => {
      const res = await request(secureApp.getHttpServer())
        .post(LOGIN)
        .set(DASHBOARD)
        .send({ email, password: PASSWORD })
        .expect(200);
      const [line] = setCookies(res);
      expect(attributes(line)).toEqual({
        pair: `__Host-mp_session=${res.body.data.accessToken}`,
        attrs: ['HttpOnly', 'Path=/', 'SameSite=Strict', 'Secure'],
      });
      await request(secureApp.getHttpServer())
        .get(ORGANIZATIONS)
        .set(DASHBOARD)
        .set('Cookie', line.split(';')[0])
        .expect(200);
    });
  });
});
