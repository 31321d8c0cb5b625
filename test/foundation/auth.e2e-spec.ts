import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { ApiKeyService, UserService } from '@app/domain';
import { createTestApp } from '../support/app';
import { client, createKey, createSession, NIL_UUID, Session } from '../support/session';
import { holdsFor, waitFor } from '../support/wait-for';

const ME = '/api/v1/user/organization';
const KEYS = '/api/v1/user/api-keys';
// Fresh emails each run: the per-account login counters live in Redis across runs.
const OWNER = `owner-${randomUUID()}@example.com`;
const MEMBER = `member-${randomUUID()}@example.com`;
const DAY_MS = 24 * 3600_000;

describe('Authentication and authorization (§3)', () => {
  let app: INestApplication;
  let s: Session;
  let other: Session;
  let server: ReturnType<INestApplication['getHttpServer']>;

  beforeAll(async () => {
    app = await createTestApp();
    server = app.getHttpServer();
    s = await createSession(app);
    other = await createSession(app);
  });
  afterAll(() => app.close());

  const expect401 = (res: request.Response) => {
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, code: 'E_UNAUTHORIZED_ACCESS' });
    expect(typeof res.body.message).toBe('string');
  };

  describe('credential resolution order', () => {
    it('X-API-Key wins over Authorization', async () => {
      const ok = await request(server)
        .get(ME)
        .set('X-API-Key', s.apiKey)
        .set('Authorization', 'Bearer garbage');
      expect(ok.status).toBe(200);
      expect(ok.body.data.id).toBe(s.org.id);
      // A bad X-API-Key is not rescued by a valid Authorization header.
      const bad = await request(server)
        .get(ME)
        .set('X-API-Key', 'bk_live_' + 'x'.repeat(40))
        .set('Authorization', `Bearer ${s.apiKey}`);
      expect401(bad);
    });

    it('Bearer bk_... is an API key', async () => {
      const res = await request(server)
        .get(ME)
        .set('Authorization', `Bearer ${s.apiKey}`)
        .expect(200);
      expect(res.body.data.credential.type).toBe('api_key');
      expect(res.headers['x-ratelimit-limit']).toBeDefined();
    });

    it('Bearer at_... is an access token that needs X-Organization-Id and membership', async () => {
      await app.get(UserService).createUser({
        email: OWNER.replace('owner', 'Owner'),
        password: 'correct horse',
        organizationId: s.org.id,
        role: 'owner',
      });
      const asked = Date.now();
      const login = await request(server)
        .post('/api/v1/auth/login')
        .send({ email: OWNER, password: 'correct horse' })
        .expect(200);
      const answered = Date.now();
      const token: string = login.body.data.accessToken;
      expect(token).toMatch(/^at_[A-Za-z0-9_-]{43}$/);
      // A day after the sign-in, which happened while the request ran.
      const expiresAt = new Date(login.body.data.expiresAt).getTime();
      expect(expiresAt).toBeGreaterThanOrEqual(asked + DAY_MS);
      expect(expiresAt).toBeLessThanOrEqual(answered + DAY_MS);

      const noOrg = await request(server).get(ME).set('Authorization', `Bearer ${token}`);
      expect(noOrg.status).toBe(403);
      expect(noOrg.body.code).toBe('E_FORBIDDEN');

      const notMember = await request(server)
        .get(ME)
        .set('Authorization', `Bearer ${token}`)
        .set('X-Organization-Id', other.org.id);
      expect(notMember.status).toBe(403);
      expect(notMember.body.code).toBe('E_FORBIDDEN');

      const member = await request(server)
        .get(ME)
        .set('Authorization', `Bearer ${token}`)
        .set('X-Organization-Id', s.org.id)
        .expect(200);
      expect(member.body.data).toMatchObject({ id: s.org.id, credential: { type: 'user' } });
      // Access tokens carry no per-key limit headers.
      expect(member.headers['x-ratelimit-limit']).toBeUndefined();

      await request(server)
        .post('/api/v1/auth/logout')
        .set('Authorization', `Bearer ${token}`)
        .expect(200);
      expect401(
        await request(server)
          .get(ME)
          .set('Authorization', `Bearer ${token}`)
          .set('X-Organization-Id', s.org.id),
      );
    });

    it('a member holds read scopes and contacts:write, not keys:manage', async () => {
      await app.get(UserService).createUser({
        email: MEMBER,
        password: 'member password',
        organizationId: s.org.id,
        role: 'member',
      });
      const login = await request(server)
        .post('/api/v1/auth/login')
        .send({ email: MEMBER, password: 'member password' })
        .expect(200);
      const headers = {
        Authorization: `Bearer ${login.body.data.accessToken}`,
        'X-Organization-Id': s.org.id,
      };
      const me = await client(app, headers).get(ME).expect(200);
      expect(me.body.data.credential.scopes).toEqual(
        expect.arrayContaining([
          'contacts:read',
          'contacts:write',
          'messages:read',
          'webhooks:read',
        ]),
      );
      expect(me.body.data.credential.scopes).not.toContain('webhooks:write');
      const res = await client(app, headers).get(KEYS);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('E_INSUFFICIENT_SCOPE');
    });
  });

  describe('401 E_UNAUTHORIZED_ACCESS', () => {
    it('missing credential', async () => expect401(await request(server).get(ME)));
    it('malformed key and malformed Authorization', async () => {
      expect401(await request(server).get(ME).set('X-API-Key', 'not-a-key'));
      expect401(await request(server).get(ME).set('X-API-Key', ''));
      expect401(await request(server).get(ME).set('Authorization', `Basic ${s.apiKey}`));
      expect401(await request(server).get(ME).set('Authorization', 'Bearer'));
      expect401(await request(server).get(ME).set('Authorization', 'Bearer at_short'));
    });
    it('unknown well-formed key', async () => {
      expect401(
        await request(server)
          .get(ME)
          .set('X-API-Key', 'bk_live_' + 'A'.repeat(40)),
      );
    });
    it('revoked key', async () => {
      const { key, value } = await createKey(app, s.org.id);
      await request(server).get(ME).set('X-API-Key', value).expect(200);
      await s.http.delete(`${KEYS}/${key.id}`).expect(200);
      expect401(await request(server).get(ME).set('X-API-Key', value));
    });
    it('a key revoked through one replica stops at once on another that had it cached', async () => {
      // A second app: its own process-local key cache, the same database and Redis.
      const replica = await createTestApp();
      try {
        const { key, value } = await createKey(app, s.org.id);
        const viaReplica = () => request(replica.getHttpServer()).get(ME).set('X-API-Key', value);
        // The replica caches the verified key (10 s).
        await viaReplica().expect(200);
        await viaReplica().expect(200);
        // Requests keep arriving at the replica while the key is revoked, so some of its
        // database reads start before the revocation and finish after the invalidation.
        let busy = true;
        let rounds = 0;
        const traffic = (async () => {
          for (; busy; rounds++) await Promise.all(Array.from({ length: 5 }, () => viaReplica()));
        })();
        await waitFor(() => rounds > 0, { what: 'traffic at the replica' });
        await s.http.delete(`${KEYS}/${key.id}`).expect(200);
        // At once, no polling: Redis hands the invalidation to the replica's subscriber before it
        // answers the PUBLISH, so before the DELETE answers.
        expect401(await viaReplica());
        busy = false;
        await traffic;
        // And it stays refused: no in-flight read put the live row back into the cache.
        await holdsFor(async () => expect401(await viaReplica()));
      } finally {
        await replica.close();
      }
    });
    it('expired key', async () => {
      const { key, value } = await createKey(app, s.org.id);
      await request(server).get(ME).set('X-API-Key', value).expect(200);
      await app
        .get(ApiKeyService)
        .update(s.org.id, key.id, { expiresAt: new Date(Date.now() - 1000) });
      expect401(await request(server).get(ME).set('X-API-Key', value));
    });
  });

  describe('403', () => {
    it('a key without the route scope is E_INSUFFICIENT_SCOPE', async () => {
      const { value } = await createKey(app, s.org.id, { scopes: ['contacts:read'] });
      const res = await request(server).get(KEYS).set('X-API-Key', value);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ success: false, code: 'E_INSUFFICIENT_SCOPE' });
    });
    it('a contradicting X-Organization-Id is E_FORBIDDEN; the matching one is fine', async () => {
      const bad = await s.http.get(ME).set('X-Organization-Id', other.org.id);
      expect(bad.status).toBe(403);
      expect(bad.body.code).toBe('E_FORBIDDEN');
      const junk = await s.http.get(ME).set('X-Organization-Id', 'junk');
      expect(junk.status).toBe(403);
      await s.http.get(ME).set('X-Organization-Id', s.org.id).expect(200);
    });
  });

  describe('login', () => {
    it('wrong email or password is 401 E_UNAUTHORIZED', async () => {
      for (const body of [
        { email: OWNER, password: 'wrong' },
        { email: `nobody-${randomUUID()}@example.com`, password: 'correct horse' },
      ]) {
        const res = await request(server).post('/api/v1/auth/login').send(body);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({
          success: false,
          message: 'Invalid email or password',
          code: 'E_UNAUTHORIZED',
        });
      }
    });
  });

  describe('validation (§4)', () => {
    it('a 422 names each field and rule', async () => {
      const res = await s.http.post(KEYS, { scopes: ['nope:scope'], rateLimitPerMinute: 0 });
      expect(res.status).toBe(422);
      expect(res.body.success).toBe(false);
      expect(res.body.code).toBe('E_VALIDATION_ERROR');
      const rules = res.body.errors.map(
        (e: { field: string; rule: string }) => `${e.field}:${e.rule}`,
      );
      expect(rules).toEqual(
        expect.arrayContaining(['name:required', 'scopes:enum', 'rateLimitPerMinute:min']),
      );
      for (const e of res.body.errors) expect(typeof e.message).toBe('string');
    });
    it('an unknown body field is a 422 with rule unknown', async () => {
      const res = await s.http.post(KEYS, { name: 'k', scopes: ['contacts:read'], isAdmin: true });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([
        { field: 'isAdmin', rule: 'unknown', message: expect.any(String) },
      ]);
    });
    it('malformed JSON is a 422 on field body', async () => {
      const res = await s.http.post(KEYS).set('Content-Type', 'application/json').send('{"name": ');
      expect(res.status).toBe(422);
      expect(res.body.errors[0]).toMatchObject({ field: 'body' });
    });
    it('a body over 1 MiB is 413', async () => {
      const res = await s.http.post(KEYS, {
        name: 'x'.repeat(1024 * 1024 + 10),
        scopes: ['contacts:read'],
      });
      expect(res.status).toBe(413);
      expect(res.body.success).toBe(false);
    });
    it('a non-UUID path id is a 422 naming the parameter; another organization key is 404', async () => {
      const res = await s.http.get(`${KEYS}/not-a-uuid`);
      expect(res.status).toBe(422);
      expect(res.body.errors[0]).toMatchObject({ field: 'id', rule: 'uuid' });
      const theirs = await other.http.get(`${KEYS}/${s.keyId}`);
      expect(theirs.status).toBe(404);
      expect(theirs.body.code).toBe('E_ROW_NOT_FOUND');
      await s.http.get(`${KEYS}/${NIL_UUID}`).expect(404);
      await other.http.delete(`${KEYS}/${s.keyId}`).expect(404);
      await s.http.get(ME).expect(200);
    });
  });

  describe('key management', () => {
    it('creates a key whose value is shown once and works with its scopes', async () => {
      const created = await s.http
        .post(KEYS, { name: 'reader', scopes: ['contacts:read'], rateLimitPerMinute: 10 })
        .expect(201);
      const value: string = created.body.data.key;
      expect(value).toMatch(/^bk_live_[0-9A-Za-z]{40}$/);
      expect(created.body.data.prefix).toBe(value.slice(0, 12));
      const fetched = await s.http.get(`${KEYS}/${created.body.data.id}`).expect(200);
      expect(fetched.body.data.key).toBeUndefined();
      expect(JSON.stringify(fetched.body)).not.toContain(value);
      const list = await s.http.get(KEYS).expect(200);
      expect(JSON.stringify(list.body)).not.toContain(value);
      expect(list.body.meta).toMatchObject({ currentPage: 1, firstPage: 1 });
      const me = await request(server).get(ME).set('X-API-Key', value).expect(200);
      expect(me.headers['x-ratelimit-limit']).toBe('10');
      const patched = await s.http
        .patch(`${KEYS}/${created.body.data.id}`, { name: 'renamed' })
        .expect(200);
      expect(patched.body.data.name).toBe('renamed');
    });
  });
});
