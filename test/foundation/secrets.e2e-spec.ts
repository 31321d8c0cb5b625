import { INestApplication } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { setLogSink, UserService } from '@app/domain';
import { createTestApp } from '../support/app';
import { createSession, Session } from '../support/session';

// Fresh each run: the per-account login counters live in Redis across runs.
const OWNER_EMAIL = `secret-owner-${randomUUID()}@example.com`;

describe('Secrets never stored, logged or echoed', () => {
  let app: INestApplication;
  let s: Session;
  const lines: string[] = [];

  beforeAll(async () => {
    setLogSink((line) => lines.push(line));
    app = await createTestApp({ logLevel: 'debug' });
    s = await createSession(app);
  });
  afterAll(async () => {
    await app.close();
    setLogSink((line) => process.stdout.write(line + '\n'));
  });

  it('keeps key and token values out of tables, logs and error bodies', async () => {
    const server = app.getHttpServer();
    const secrets: string[] = [s.apiKey];
    const errorBodies: string[] = [];

    const created = await s.http.post('/api/v1/user/api-keys', {
      name: 'made over http',
      scopes: ['contacts:read'],
    });
    expect(created.status).toBe(201);
    secrets.push(created.body.data.key);
    await request(server)
      .get('/api/v1/user/organization')
      .set('X-API-Key', created.body.data.key)
      .expect(200);

    await app.get(UserService).createUser({
      email: OWNER_EMAIL,
      password: 'hunter2-password',
      organizationId: s.org.id,
      role: 'owner',
    });
    secrets.push('hunter2-password');
    const login = await request(server)
      .post('/api/v1/auth/login')
      .send({ email: OWNER_EMAIL, password: 'hunter2-password' })
      .expect(200);
    const token: string = login.body.data.accessToken;
    secrets.push(token);
    await request(server)
      .get('/api/v1/user/organization')
      .set('Authorization', `Bearer ${token}`)
      .set('X-Organization-Id', s.org.id)
      .expect(200);

    // Refused credentials must not be echoed either.
    const wrongKey = 'bk_live_' + 'Z'.repeat(40);
    const wrongToken = 'at_' + 'Q'.repeat(43);
    secrets.push(wrongKey, wrongToken);
    for (const req of [
      request(server).get('/api/v1/user/organization').set('X-API-Key', wrongKey),
      request(server).get('/api/v1/user/organization').set('Authorization', `Bearer ${wrongToken}`),
      request(server).get('/api/v1/user/api-keys').set('Authorization', `Bearer ${token}`),
      request(server)
        .post('/api/v1/auth/login')
        .send({ email: OWNER_EMAIL, password: 'wrong-pass-x' }),
    ]) {
      const res = await req;
      expect(res.status).toBeGreaterThanOrEqual(400);
      errorBodies.push(JSON.stringify(res.body));
    }
    secrets.push('wrong-pass-x');
    await request(server)
      .post('/api/v1/auth/logout')
      .set('Authorization', `Bearer ${token}`)
      .expect(200);

    // Logs were written (the capture works) and name no secret.
    expect(lines.some((l) => JSON.parse(l).msg === 'request')).toBe(true);
    const logText = lines.join('\n');
    for (const secret of secrets) {
      expect(logText).not.toContain(secret);
      for (const body of errorBodies) expect(body).not.toContain(secret);
    }

    // Every text-like column of every table, searched for every secret.
    const ds = app.get<DataSource>(getDataSourceToken());
    const columns: { table_name: string; column_name: string }[] = await ds.query(
      `SELECT table_name, column_name FROM information_schema.columns
        WHERE table_schema = 'public' AND data_type IN ('text', 'character varying', 'ARRAY', 'jsonb', 'json')`,
    );
    expect(columns.length).toBeGreaterThan(5);
    for (const { table_name, column_name } of columns) {
      for (const secret of secrets) {
        const [{ n }] = await ds.query(
          `SELECT count(*)::int AS n FROM "${table_name}" WHERE "${column_name}"::text LIKE '%' || $1 || '%'`,
          [secret],
        );
        expect({ table_name, column_name, n }).toEqual({ table_name, column_name, n: 0 });
      }
    }
    // What is stored instead: the SHA-256 hash and a 12-character display prefix.
    const [row] = await ds.query(`SELECT key_hash, key_prefix FROM api_keys WHERE id = $1`, [
      s.keyId,
    ]);
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.key_prefix).toBe(s.apiKey.slice(0, 12));
  });
});
