// The resilience fuzzer and tenancy sweep take their route table from the API's OpenAPI document
// (plus the routes it leaves out on purpose). This proves that table is exactly what the app
// registers, that every route falls in a fuzz group, and that every path id names a resource kind
// the tenancy sweep seeds: a new route fails here until the hostile-input suite covers it.
import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { createTestApp } from '../support/app';
import {
  allRoutes,
  groupOf,
  OpenApiDocument,
  resourceKindOf,
  routeKey,
  TOKEN_PARAMS,
} from './support/routes';
import { RESOURCE_KINDS } from './support/seed';

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
}

describe('Resilience route table', () => {
  let app: INestApplication;
  let doc: OpenApiDocument;
  let registered: Set<string>;

  beforeAll(async () => {
    app = await createTestApp();
    doc = (await request(app.getHttpServer()).get('/docs/json').expect(200)).body;
    const express = app.getHttpAdapter().getInstance() as { router: { stack: Layer[] } };
    registered = new Set();
    for (const layer of express.router.stack) {
      if (!layer.route) continue;
      for (const path of [layer.route.path].flat()) {
        if (path.startsWith('/docs')) continue; // Swagger UI and the document itself
        for (const [method, on] of Object.entries(layer.route.methods)) {
          if (!on || method === '_all') continue;
          // Express matches with or without a trailing slash (`@Post()` under a controller path).
          const template = path.replace(/:(\w+)/g, '{$1}').replace(/(.)\/$/, '$1');
          registered.add(routeKey({ method, path: template }));
        }
      }
    }
  });
  afterAll(() => app.close());

  it('covers exactly the routes the app registers', () => {
    const covered = new Set(allRoutes(doc).map(routeKey));
    expect(registered.size).toBeGreaterThan(80);
    expect([...registered].filter((r) => !covered.has(r)).sort()).toEqual([]);
    expect([...covered].filter((r) => !registered.has(r)).sort()).toEqual([]);
  });

  it('puts every route in a fuzz group', () => {
    for (const key of registered) expect(() => groupOf(key.split(' ')[1])).not.toThrow();
    expect(() => groupOf('/api/v1/user/brand-new-area')).toThrow(/no fuzz group/);
  });

  it('knows the resource kind of every path id, and seeds every kind', () => {
    const kinds = new Set<string>();
    for (const route of allRoutes(doc)) {
      for (const param of route.pathParams) {
        if (TOKEN_PARAMS.has(`${route.path}:${param}`)) continue;
        const kind = resourceKindOf(route.path, param);
        expect(RESOURCE_KINDS).toContain(kind);
        kinds.add(kind!);
      }
    }
    expect([...kinds].sort()).toEqual([...RESOURCE_KINDS].sort());
    expect(() => resourceKindOf('/api/v1/user/gadgets/{id}', 'id')).toThrow(/no known resource/);
  });
});
