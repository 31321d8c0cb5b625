// One call gives a test a fresh organization, an API key and a supertest client bound to it.
import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { ApiKeyService, Organization, OrganizationService, OrgId, Plan, Scope } from '@app/domain';

export interface Client {
  get(path: string): request.Test;
  post(path: string, body?: object): request.Test;
  patch(path: string, body?: object): request.Test;
  put(path: string, body?: object): request.Test;
  delete(path: string, body?: object): request.Test;
}

/** Requests carrying the given headers (an API key, a token, an organization id). */
export function client(app: INestApplication, headers: Record<string, string>): Client {
  const server = app.getHttpServer();
  const withHeaders = (t: request.Test) => {
    for (const [k, v] of Object.entries(headers)) t.set(k, v);
    return t;
  };
  const withBody = (t: request.Test, body?: object) => (body === undefined ? t : t.send(body));
  return {
    get: (p) => withHeaders(request(server).get(p)),
    post: (p, b) => withBody(withHeaders(request(server).post(p)), b),
    patch: (p, b) => withBody(withHeaders(request(server).patch(p)), b),
    put: (p, b) => withBody(withHeaders(request(server).put(p)), b),
    delete: (p, b) => withBody(withHeaders(request(server).delete(p)), b),
  };
}

export interface Session {
  org: Organization;
  keyId: string;
  apiKey: string;
  http: Client;
}

export interface SessionOptions {
  plan?: Plan;
  scopes?: Scope[] | 'all';
  /** Per-key request limit; tests default to a high one so they never trip it by accident. */
  perMinute?: number;
  perDay?: number | null;
  name?: string;
}

export async function createSession(
  app: INestApplication,
  opts: SessionOptions = {},
): Promise<Session> {
  const org = await app.get(OrganizationService).create({
    name: opts.name ?? `Test org ${randomUUID().slice(0, 8)}`,
    plan: opts.plan,
  });
  const { key, value } = await createKey(app, org.id, opts);
  return { org, keyId: key.id, apiKey: value, http: client(app, { 'X-API-Key': value }) };
}

/** Another key of an existing organization. */
export async function createKey(
  app: INestApplication,
  organizationId: OrgId,
  opts: SessionOptions = {},
) {
  return app.get(ApiKeyService).create(organizationId, {
    name: opts.name ?? 'test key',
    scopes: opts.scopes ?? 'all',
    rateLimitPerMinute: opts.perMinute ?? 1_000_000,
    rateLimitPerDay: opts.perDay ?? null,
  });
}

export const NIL_UUID = '00000000-0000-4000-8000-000000000000';
