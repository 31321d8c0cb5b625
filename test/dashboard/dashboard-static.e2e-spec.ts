// The api serves the dashboard's build at /dashboard (§15), and says how to build it when absent.
import { INestApplication } from '@nestjs/common';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createTestApp } from '../support/app';

function fakeBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mp-dashboard-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>dash</title><div id="root"></div>');
  writeFileSync(join(dir, 'assets', 'index-AbC123.js'), 'console.log(1)');
  return dir;
}

/** An api whose dashboard directory is `dir` (the configuration is read when the app is built). */
async function appWithDashboard(dir: string): Promise<INestApplication> {
  const previous = process.env.DASHBOARD_DIR;
  process.env.DASHBOARD_DIR = dir;
  try {
    return await createTestApp();
  } finally {
    if (previous === undefined) delete process.env.DASHBOARD_DIR;
    else process.env.DASHBOARD_DIR = previous;
  }
}

describe('dashboard static files', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await appWithDashboard(fakeBuild());
  });
  afterAll(() => app.close());

  it('serves index.html for the root and every client route, uncached, under a strict CSP', async () => {
    for (const path of [
      '/dashboard',
      '/dashboard/',
      '/dashboard/contacts/123',
      '/dashboard/webhooks',
    ]) {
      const res = await request(app.getHttpServer()).get(path);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('<div id="root">');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toMatch(/default-src 'self'/);
      expect(res.headers['content-security-policy']).toMatch(/script-src 'self'(;|$)/);
    }
  });

  it('caches hashed assets for a year and answers a missing one 404, never the page', async () => {
    const server = app.getHttpServer();
    const asset = await request(server).get('/dashboard/assets/index-AbC123.js');
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const missing = await request(server).get('/dashboard/assets/index-Old999.js');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ success: false, code: 'E_ROW_NOT_FOUND' });
  });

  it('needs no credential and leaves the API routes alone', async () => {
    const api = await request(app.getHttpServer()).get('/api/v1/user/contacts');
    expect(api.status).toBe(401);
    expect(api.headers['content-security-policy']).toBeUndefined();
  });

  it('without a build answers 404 in the error envelope, telling to run the build', async () => {
    const bare = await appWithDashboard(mkdtempSync(join(tmpdir(), 'mp-no-dashboard-')));
    try {
      for (const path of ['/dashboard', '/dashboard/contacts']) {
        const res = await request(bare.getHttpServer()).get(path);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({
          success: false,
          code: 'E_ROW_NOT_FOUND',
          message: expect.stringContaining('npm run build'),
        });
      }
      const health = await request(bare.getHttpServer()).get('/health');
      expect(health.status).toBe(200);
    } finally {
      await bare.close();
    }
  });
});
