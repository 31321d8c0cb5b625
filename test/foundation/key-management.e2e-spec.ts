// Key management by keys (§16): a key grants at most what it holds. A key with `keys:manage`
// creates or changes keys only within its own scopes, never raises its own limits or expiry, and
// never gives another key more than its own; owner and admin access tokens are not restricted.
import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { ApiKeyService, Scope, UserService } from '@app/domain';
import { createTestApp } from '../support/app';
import { client, Client, createSession, Session } from '../support/session';

const KEYS = '/api/v1/user/api-keys';
const DAY_MS = 24 * 3600_000;

describe('Key management by keys (§16)', () => {
  let app: INestApplication;
  let s: Session;

  beforeAll(async () => {
    app = await createTestApp();
    s = await createSession(app);
  });
  afterAll(() => app.close());

  /** A key of the test organization, called through HTTP. */
  async function keyClient(opts: {
    scopes: Scope[];
    perMinute?: number;
    perDay?: number | null;
    expiresAt?: Date | null;
  }): Promise<{ id: string; http: Client }> {
    const { key, value } = await app.get(ApiKeyService).create(s.org.id, {
      name: 'manager',
      scopes: opts.scopes,
      rateLimitPerMinute: opts.perMinute ?? 100,
      rateLimitPerDay: opts.perDay === undefined ? 1000 : opts.perDay,
      expiresAt: opts.expiresAt === undefined ? new Date(Date.now() + DAY_MS) : opts.expiresAt,
    });
    return { id: key.id, http: client(app, { 'X-API-Key': value }) };
  }

  function expectForbidden(res: request.Response) {
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      success: false,
      message: expect.any(String),
      code: 'E_FORBIDDEN',
    });
  }

  describe('creating a key', () => {
    it('refuses scopes the calling key does not hold', async () => {
      const m = await keyClient({ scopes: ['keys:manage'] });
      expectForbidden(
        await m.http.post(KEYS, {
          name: 'escalated',
          scopes: ['contacts:write', 'messages:send', 'webhooks:write'],
        }),
      );
      expectForbidden(
        await m.http.post(KEYS, { name: 'one more', scopes: ['keys:manage', 'contacts:read'] }),
      );
      const list = await s.http.get(`${KEYS}?limit=100`).expect(200);
      expect(list.body.data.map((k: { name: string }) => k.name)).not.toEqual(
        expect.arrayContaining(['escalated']),
      );
    });

    it('refuses limits or an expiry beyond the calling key', async () => {
      const expiresAt = new Date(Date.now() + DAY_MS);
      const m = await keyClient({ scopes: ['keys:manage'], expiresAt });
      const base = { name: 'k', scopes: ['keys:manage'] };
      expectForbidden(await m.http.post(KEYS, { ...base, rateLimitPerMinute: 1_000_000 }));
      expectForbidden(await m.http.post(KEYS, { ...base, rateLimitPerMinute: 101 }));
      expectForbidden(await m.http.post(KEYS, { ...base, rateLimitPerDay: 1001 }));
      expectForbidden(await m.http.post(KEYS, { ...base, rateLimitPerDay: null }));
      expectForbidden(await m.http.post(KEYS, { ...base, expiresAt: null }));
      expectForbidden(
        await m.http.post(KEYS, {
          ...base,
          expiresAt: new Date(expiresAt.getTime() + 60_000).toISOString(),
        }),
      );
    });

    it('allows what the calling key holds; omitted limits are bounded by it', async () => {
      const expiresAt = new Date(Date.now() + DAY_MS);
      const m = await keyClient({ scopes: ['keys:manage', 'contacts:read'], expiresAt });
      const created = await m.http
        .post(KEYS, { name: 'reader', scopes: ['contacts:read'] })
        .expect(201);
      expect(created.body.data).toMatchObject({
        scopes: ['contacts:read'],
        rateLimitPerMinute: 100,
        rateLimitPerDay: 1000,
        expiresAt: expiresAt.toISOString(),
      });
      const explicit = await m.http
        .post(KEYS, {
          name: 'narrow',
          scopes: ['keys:manage', 'contacts:read'],
          rateLimitPerMinute: 50,
          rateLimitPerDay: 1000,
          expiresAt: new Date(expiresAt.getTime() - 60_000).toISOString(),
        })
        .expect(201);
      expect(explicit.body.data.rateLimitPerMinute).toBe(50);
      // The new key works with what it was given.
      await request(app.getHttpServer())
        .get('/api/v1/user/contacts')
        .set('X-API-Key', created.body.data.key)
        .expect(200);
    });

    it('keeps the default of 300 per minute when the calling key allows more', async () => {
      const m = await keyClient({ scopes: ['keys:manage'], perMinute: 5000, perDay: null });
      const created = await m.http.post(KEYS, { name: 'd', scopes: ['keys:manage'] }).expect(201);
      expect(created.body.data).toMatchObject({ rateLimitPerMinute: 300, rateLimitPerDay: null });
    });
  });

  describe('changing its own key', () => {
    it('refuses to raise its own limits, drop its day cap or extend its expiry', async () => {
      const expiresAt = new Date(Date.now() + DAY_MS);
      const m = await keyClient({ scopes: ['keys:manage'], expiresAt });
      const own = `${KEYS}/${m.id}`;
      expectForbidden(await m.http.patch(own, { rateLimitPerMinute: 1_000_000 }));
      expectForbidden(await m.http.patch(own, { rateLimitPerDay: 1001 }));
      expectForbidden(await m.http.patch(own, { rateLimitPerDay: null }));
      expectForbidden(await m.http.patch(own, { expiresAt: null }));
      expectForbidden(
        await m.http.patch(own, { expiresAt: new Date(expiresAt.getTime() + 1000).toISOString() }),
      );
      expectForbidden(await m.http.patch(own, { scopes: ['keys:manage', 'messages:send'] }));
      const stored = await s.http.get(own).expect(200);
      expect(stored.body.data).toMatchObject({
        scopes: ['keys:manage'],
        rateLimitPerMinute: 100,
        rateLimitPerDay: 1000,
        expiresAt: expiresAt.toISOString(),
      });
    });

    it('may lower its own limits, shorten its expiry, narrow its scopes and rename itself', async () => {
      const m = await keyClient({ scopes: ['keys:manage', 'contacts:read'] });
      const own = `${KEYS}/${m.id}`;
      const sooner = new Date(Date.now() + 3600_000).toISOString();
      const res = await m.http
        .patch(own, {
          name: 'calmer',
          rateLimitPerMinute: 10,
          rateLimitPerDay: 500,
          expiresAt: sooner,
          scopes: ['keys:manage'],
        })
        .expect(200);
      expect(res.body.data).toMatchObject({
        name: 'calmer',
        rateLimitPerMinute: 10,
        rateLimitPerDay: 500,
        expiresAt: sooner,
        scopes: ['keys:manage'],
      });
      // Same values again are not a raise.
      await m.http.patch(own, { rateLimitPerMinute: 10, rateLimitPerDay: 500 }).expect(200);
    });
  });

  describe('changing another key', () => {
    it('refuses to give it scopes or limits beyond the calling key', async () => {
      const m = await keyClient({ scopes: ['keys:manage', 'contacts:read'] });
      const target = await keyClient({ scopes: ['contacts:read'], perMinute: 50, perDay: 100 });
      const path = `${KEYS}/${target.id}`;
      expectForbidden(await m.http.patch(path, { scopes: ['contacts:read', 'messages:send'] }));
      expectForbidden(await m.http.patch(path, { rateLimitPerMinute: 101 }));
      expectForbidden(await m.http.patch(path, { rateLimitPerDay: null }));
      expectForbidden(await m.http.patch(path, { expiresAt: null }));
      // Up to its own limits is fine.
      const ok = await m.http
        .patch(path, { rateLimitPerMinute: 100, rateLimitPerDay: 1000 })
        .expect(200);
      expect(ok.body.data).toMatchObject({ rateLimitPerMinute: 100, rateLimitPerDay: 1000 });
    });

    it('refuses to change a key that holds scopes the calling key lacks', async () => {
      const m = await keyClient({ scopes: ['keys:manage'] });
      expectForbidden(
        await m.http.patch(`${KEYS}/${s.keyId}`, { name: 'renamed by a weaker key' }),
      );
      expectForbidden(await m.http.patch(`${KEYS}/${s.keyId}`, { rateLimitPerMinute: 1 }));
    });

    it('revokes only keys within its own scopes, and itself', async () => {
      const m = await keyClient({ scopes: ['keys:manage', 'contacts:read'] });
      expectForbidden(await m.http.delete(`${KEYS}/${s.keyId}`));
      await s.http.get('/api/v1/user/organization').expect(200);
      const weaker = await keyClient({ scopes: ['contacts:read'] });
      await m.http.delete(`${KEYS}/${weaker.id}`).expect(200);
      await m.http.delete(`${KEYS}/${m.id}`).expect(200);
      expect((await m.http.get(KEYS)).status).toBe(401);
    });

    it('may lower a key whose limits are above its own', async () => {
      const m = await keyClient({ scopes: ['keys:manage'], perMinute: 100 });
      const big = await keyClient({ scopes: ['keys:manage'], perMinute: 5000, perDay: null });
      const path = `${KEYS}/${big.id}`;
      const res = await m.http.patch(path, { rateLimitPerMinute: 4000 }).expect(200);
      expect(res.body.data.rateLimitPerMinute).toBe(4000);
      expectForbidden(await m.http.patch(path, { rateLimitPerMinute: 4001 }));
    });
  });

  describe('access tokens', () => {
    it('an owner token creates an all-scope key with any limits', async () => {
      const email = `owner-${randomUUID()}@example.com`;
      const password = 'owner password 1';
      await app
        .get(UserService)
        .createUser({ email, password, organizationId: s.org.id, role: 'owner' });
      const login = await request(app.getHttpServer())
        .post('/api/v1/auth/login')
        .send({ email, password })
        .expect(200);
      const owner = client(app, {
        Authorization: `Bearer ${login.body.data.accessToken}`,
        'X-Organization-Id': s.org.id,
      });
      const all = (await s.http.get('/api/v1/user/organization').expect(200)).body.data.credential
        .scopes as string[];
      const created = await owner
        .post(KEYS, {
          name: 'everything',
          scopes: all,
          rateLimitPerMinute: 1_000_000,
          rateLimitPerDay: null,
          expiresAt: null,
        })
        .expect(201);
      expect([...created.body.data.scopes].sort()).toEqual([...all].sort());
      expect(created.body.data.rateLimitPerMinute).toBe(1_000_000);
      const patched = await owner
        .patch(`${KEYS}/${created.body.data.id}`, { rateLimitPerDay: null, expiresAt: null })
        .expect(200);
      expect(patched.body.data).toMatchObject({ rateLimitPerDay: null, expiresAt: null });
    });
  });
});
