// GET /api/v1/auth/organizations: the organizations a signed-in user may pick (dashboard, §15).
import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { OrganizationService, UserService } from '@app/domain';
import { createTestApp } from '../support/app';
import { createSession } from '../support/session';

const PASSWORD = 'correct horse battery staple';

describe('GET /api/v1/auth/organizations', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  async function login(email: string): Promise<string> {
    const res = await request(app.getHttpServer())
      .post('/api/v1/auth/login')
      .send({ email, password: PASSWORD })
      .expect(200);
    return res.body.data.accessToken;
  }

  it('lists every organization of the token’s user, by name, with the role in each', async () => {
    const orgs = app.get(OrganizationService);
    const users = app.get(UserService);
    const tag = randomUUID().slice(0, 8);
    const zeta = await orgs.create({ name: `Zeta ${tag}`, plan: 'pro' });
    const alpha = await orgs.create({ name: `Alpha ${tag}` });
    const other = await orgs.create({ name: `Other ${tag}` });
    const email = `multi-${tag}@example.test`;
    await users.createUser({ email, password: PASSWORD, organizationId: zeta.id, role: 'member' });
    await users.createUser({ email, password: PASSWORD, organizationId: alpha.id, role: 'owner' });
    await users.createUser({
      email: `else-${tag}@example.test`,
      password: PASSWORD,
      organizationId: other.id,
      role: 'owner',
    });
    const token = await login(email);

    const res = await request(app.getHttpServer())
      .get('/api/v1/auth/organizations')
      .set('Authorization', `Bearer ${token}`)
      .expect(200);
    expect(res.body).toEqual({
      success: true,
      message: 'Organizations fetched successfully',
      data: [
        { id: alpha.id, name: `Alpha ${tag}`, plan: 'free', role: 'owner' },
        { id: zeta.id, name: `Zeta ${tag}`, plan: 'pro', role: 'member' },
      ],
    });
  });

  it('refuses an API key, a revoked token and no credential with 401', async () => {
    const s = await createSession(app);
    const server = app.getHttpServer();
    const byKey = await request(server)
      .get('/api/v1/auth/organizations')
      .set('X-API-Key', s.apiKey);
    expect(byKey.status).toBe(401);
    expect(byKey.body.code).toBe('E_UNAUTHORIZED_ACCESS');
    const keyAsBearer = await request(server)
      .get('/api/v1/auth/organizations')
      .set('Authorization', `Bearer ${s.apiKey}`);
    expect(keyAsBearer.status).toBe(401);

    const email = `revoked-${randomUUID().slice(0, 8)}@example.test`;
    await app
      .get(UserService)
      .createUser({ email, password: PASSWORD, organizationId: s.org.id, role: 'admin' });
    const token = await login(email);
    await request(server)
      .post('/api/v1/auth/logout')
      .set('Authorization', `Bearer ${token}`)
      .expect(200);
    const revoked = await request(server)
      .get('/api/v1/auth/organizations')
      .set('Authorization', `Bearer ${token}`);
    expect(revoked.status).toBe(401);
    expect((await request(server).get('/api/v1/auth/organizations')).status).toBe(401);
  });
});
