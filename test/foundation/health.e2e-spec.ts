import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { createTestApp } from '../support/app';

describe('GET /health', () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it('reports database and Redis up', async () => {
    const res = await request(app.getHttpServer()).get('/health').expect(200);
    expect(res.body).toEqual({
      success: true,
      message: 'OK',
      data: { status: 'ok', database: 'up', redis: 'up' },
    });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('keeps a sane incoming X-Request-Id', async () => {
    const res = await request(app.getHttpServer())
      .get('/health')
      .set('X-Request-Id', 'abc-123')
      .expect(200);
    expect(res.headers['x-request-id']).toBe('abc-123');
  });

  it('answers an unknown route with the error envelope', async () => {
    const res = await request(app.getHttpServer()).get('/nope').expect(404);
    expect(res.body).toEqual({
      success: false,
      message: 'Route not found',
      code: 'E_ROW_NOT_FOUND',
    });
  });
});

describe('OpenAPI at /docs', () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it('lists every route with its body schema and required scopes', async () => {
    const res = await request(app.getHttpServer()).get('/docs/json').expect(200);
    const doc = res.body;
    expect(doc.info.version).toBe('1.0.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/health',
        '/api/v1/auth/login',
        '/api/v1/user/api-keys',
        '/api/v1/user/api-keys/{id}',
      ]),
    );
    const create = doc.paths['/api/v1/user/api-keys'].post;
    expect(create['x-required-scopes']).toEqual(['keys:manage']);
    expect(create.requestBody.content['application/json'].schema.$ref).toMatch(/CreateApiKeyDto$/);
    expect(doc.paths['/api/v1/user/api-keys/{id}'].delete['x-required-scopes']).toEqual([
      'keys:manage',
    ]);
    expect(doc.components.securitySchemes).toHaveProperty('apiKey');
  });
});
