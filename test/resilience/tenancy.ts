// Tenancy sweep (issue 10): organization B gets one resource of every kind through the API; then
// every route that takes a resource id is called with organization A's key and B's ids (every mix
// of A's and B's ids on routes with several), and every body or query field that names another
// resource is given B's id. Each must read as missing (404) or, for filters, as empty, never show
// B's data, and B's rows must be exactly as before. The route list comes from the app's OpenAPI
// document, so a new route with an id gets a case without anyone writing one.
import fc from 'fast-check';
import type { Pool } from 'pg';
import { IdPools, validFor } from './support/arbitraries';
import type { OrgFixture, Reporter, ResilienceContext } from './support/context';
import { checkAnswer } from './support/envelope';
import { HttpAnswer, HttpClient } from './support/http';
import {
  allRoutes,
  fetchOpenApi,
  OpenApiDocument,
  resourceKindOf,
  RouteSpec,
  routeKey,
  TOKEN_PARAMS,
} from './support/routes';
import { RESOURCE_KINDS, ResourceKind, SeededOrg, seedOrg } from './support/seed';

/**
 * A body each id route accepts, so the request gets past validation and the id is what decides.
 * Keyed by the OpenAPI schema name; a route whose body schema is not here falls back to a
 * generated valid body (and a 422 then fails the sweep, asking for an entry).
 */
function minimalBodies(a: SeededOrg): Record<string, unknown> {
  return {
    UpdateContactDto: { firstName: 'Tenancy' },
    AddTagsDto: { names: ['tenancy'] },
    CreateEmailDto: { email: 'tenancy-probe@example.com' },
    CreateSmsDto: { phoneNumber: '+14155550177' },
    CreateWhatsappDto: { phoneNumber: '+14155550178' },
    CreateTelegramDto: { phoneNumber: '+14155550179' },
    CreateImessageDto: { appleId: 'tenancy-probe@example.com' },
    CreatePushDto: { deviceToken: 'tenancy-probe', platform: 'android' },
    UpdateEmailDto: { isPrimary: true },
    UpdateSmsDto: { status: 'verified' },
    UpdateWhatsappDto: { isPrimary: true },
    UpdateTelegramDto: { isPrimary: true },
    UpdateImessageDto: { isPrimary: true },
    UpdatePushDto: { status: 'inactive' },
    TagNameDto: { name: 'tenancy-renamed' },
    UpdateListDto: { name: 'Tenancy renamed' },
    SubscribeDto: { contactIds: [a.ids.contact] },
    UnsubscribeDto: { reason: 'tenancy' },
    UpdateSegmentDto: { name: 'Tenancy renamed' },
    SegmentMembersDto: { contactIds: [a.ids.contact] },
    UpdateCampaignDto: { name: 'Tenancy renamed' },
    UpdateWebhookEndpointDto: { description: 'tenancy' },
    StartImportDto: {
      fieldMappings: [{ csvHeader: 'email', serviceField: 'email' }],
      consentConfirmed: true,
    },
    UpdateApiKeyDto: { name: 'tenancy renamed' },
  };
}

interface TenancyCase {
  name: string;
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Statuses that mean "not yours". */
  expect: number[];
  /** For a 2xx: a check of the data (e.g. an empty list). */
  check?: (a: HttpAnswer) => string | null;
}

/** Rows of organization B, table by table, as one fingerprint each. */
async function snapshot(db: Pool, orgId: string): Promise<Map<string, string>> {
  const tables = await db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.columns
      WHERE table_schema = 'public' AND column_name = 'organization_id'
      ORDER BY table_name`,
  );
  const out = new Map<string, string>();
  const fingerprint = async (name: string, sql: string) => {
    const r = await db.query<{ n: string; h: string | null }>(sql, [orgId]);
    out.set(name, `${r.rows[0].n}:${r.rows[0].h ?? ''}`);
  };
  for (const { table_name: t } of tables.rows) {
    await fingerprint(
      t,
      `SELECT count(*) AS n, md5(string_agg(md5(x::text), '' ORDER BY md5(x::text))) AS h
         FROM "${t}" x WHERE organization_id = $1`,
    );
  }
  await fingerprint(
    'organizations',
    `SELECT count(*) AS n, md5(string_agg(x::text, '')) AS h FROM organizations x WHERE id = $1`,
  );
  const listTags = await db.query(
    `SELECT 1 FROM information_schema.columns WHERE table_name = 'contact_list_tags' AND column_name = 'contact_list_id'`,
  );
  if (listTags.rowCount) {
    await fingerprint(
      'contact_list_tags',
      `SELECT count(*) AS n, md5(string_agg(md5(x::text), '' ORDER BY md5(x::text))) AS h
         FROM contact_list_tags x JOIN contact_lists l ON l.id = x.contact_list_id
        WHERE l.organization_id = $1`,
    );
  }
  return out;
}

function diff(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...after.keys()].filter((k) => before.get(k) !== after.get(k));
}

/** Waits until B's rows stop changing (the worker delivers its seeded message and webhook). */
async function quiescent(db: Pool, orgId: string): Promise<Map<string, string>> {
  let last = await snapshot(db, orgId);
  const until = Date.now() + 60_000;
  let stableSince = Date.now();
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 1000));
    const next = await snapshot(db, orgId);
    if (diff(last, next).length) stableSince = Date.now();
    else if (Date.now() - stableSince >= 3000) return next;
    last = next;
  }
  return last;
}

const emptyList = (a: HttpAnswer) => {
  const data = (a.json as { data?: unknown } | undefined)?.data;
  return Array.isArray(data) && data.length === 0
    ? null
    : `expected an empty list, got ${JSON.stringify(data).slice(0, 200)}`;
};

/** Path cases: every id route, every mix of A's and B's ids with at least one of B's. */
function pathCases(
  doc: OpenApiDocument,
  routes: RouteSpec[],
  a: SeededOrg,
  b: SeededOrg,
): { cases: TenancyCase[]; uncovered: string[] } {
  const bodies = minimalBodies(a);
  const pools = Object.fromEntries(RESOURCE_KINDS.map((k) => [k, [a.ids[k]]])) as IdPools;
  const cases: TenancyCase[] = [];
  const uncovered: string[] = [];
  for (const route of routes) {
    const params = route.pathParams.filter((p) => !TOKEN_PARAMS.has(`${route.path}:${p}`));
    if (!params.length) continue;
    let kinds: ResourceKind[];
    try {
      kinds = params.map((p) => resourceKindOf(route.path, p)!);
    } catch (err) {
      uncovered.push(`${routeKey(route)}: ${(err as Error).message}`);
      continue;
    }
    let body: unknown;
    if (route.bodyKind === 'json' && route.body) {
      const name = typeof route.body.$ref === 'string' ? route.body.$ref.split('/').pop()! : '';
      body =
        name in bodies
          ? bodies[name]
          : fc.sample(
              validFor(
                {
                  doc,
                  pools,
                  receiverUrl: 'http://127.0.0.1:9/refused',
                  csvHeaders: a.csvHeaders,
                  orgId: a.org.id,
                },
                route.body,
                'body',
              ),
              { seed: 1, numRuns: 1 },
            )[0];
    }
    for (let mask = 1; mask < 1 << params.length; mask++) {
      let path = route.path;
      const who: string[] = [];
      params.forEach((p, i) => {
        const fromB = (mask >> i) & 1;
        path = path.replace(`{${p}}`, (fromB ? b : a).ids[kinds[i]]);
        who.push(`${p}=${fromB ? 'B' : 'A'}`);
      });
      cases.push({
        name: `${routeKey(route)} (${who.join(', ')})`,
        method: route.method,
        path,
        body,
        expect: [404],
      });
    }
  }
  return { cases, uncovered };
}

/** Body and query fields that name another resource, given one of B's. */
function referenceCases(a: SeededOrg, b: SeededOrg): TenancyCase[] {
  const A = a.ids;
  const B = b.ids;
  const notFound = [404];
  return [
    {
      name: 'POST /contacts listIds=[B list]',
      method: 'POST',
      path: '/api/v1/user/contacts',
      body: { firstName: 'X', listIds: [B.list] },
      expect: notFound,
    },
    {
      name: 'POST /contact-lists/{A}/members contactIds=[B contact]',
      method: 'POST',
      path: `/api/v1/user/contact-lists/${A.list}/members`,
      body: { contactIds: [B.contact] },
      expect: notFound,
    },
    {
      name: 'POST /contact-segments static contactIds=[B contact]',
      method: 'POST',
      path: '/api/v1/user/contact-segments',
      body: { name: 'X', type: 'static', contactIds: [B.contact] },
      expect: notFound,
    },
    {
      name: 'POST /contact-segments/{A}/members contactIds=[B contact]',
      method: 'POST',
      path: `/api/v1/user/contact-segments/${A.segment}/members`,
      body: { contactIds: [B.contact] },
      expect: notFound,
    },
    {
      name: 'DELETE /contact-segments/{A}/members contactIds=[B contact]',
      method: 'DELETE',
      path: `/api/v1/user/contact-segments/${A.segment}/members`,
      body: { contactIds: [B.contact] },
      expect: notFound,
    },
    {
      name: 'POST /contact-segments/preview lists subscribedTo [B list]',
      method: 'POST',
      path: '/api/v1/user/contact-segments/preview',
      body: {
        rules: {
          operator: 'and',
          conditions: [{ field: 'lists', operator: 'subscribedTo', value: [B.list] }],
        },
      },
      expect: [200, 404, 422],
      check: (ans) => {
        const d = (ans.json as { data?: { count?: number } }).data;
        return d?.count === 0 ? null : `preview counted ${d?.count} contacts through B's list`;
      },
    },
    {
      name: 'POST /campaigns listId=B list',
      method: 'POST',
      path: '/api/v1/user/campaigns',
      body: { name: 'X', subject: 'S', from: 'a@example.com', html: '<p>x</p>', listId: B.list },
      expect: notFound,
    },
    {
      name: 'POST /campaigns segmentId=B segment',
      method: 'POST',
      path: '/api/v1/user/campaigns',
      body: {
        name: 'X',
        subject: 'S',
        from: 'a@example.com',
        html: '<p>x</p>',
        segmentId: B.segment,
      },
      expect: notFound,
    },
    {
      name: 'PATCH /campaigns/{A} listId=B list',
      method: 'PATCH',
      path: `/api/v1/user/campaigns/${A.campaign}`,
      body: { listId: B.list },
      expect: notFound,
    },
    {
      name: 'PATCH /campaigns/{A} segmentId=B segment',
      method: 'PATCH',
      path: `/api/v1/user/campaigns/${A.campaign}`,
      body: { segmentId: B.segment },
      expect: notFound,
    },
    {
      name: 'POST /conversions campaignId=B campaign',
      method: 'POST',
      path: '/api/v1/user/conversions',
      body: { campaignId: B.campaign, orderId: 'tenancy-1', revenue: 1 },
      expect: notFound,
    },
    {
      name: 'POST /conversions contactId=B contact',
      method: 'POST',
      path: '/api/v1/user/conversions',
      body: { campaignId: A.campaign, contactId: B.contact, orderId: 'tenancy-2', revenue: 1 },
      expect: notFound,
    },
    {
      name: 'POST /conversions orderId=B order',
      method: 'POST',
      path: '/api/v1/user/conversions',
      body: { campaignId: A.campaign, orderId: b.conversionOrderId, revenue: 7 },
      expect: [201, 200],
    },
    {
      name: 'POST /send campaignId=B campaign',
      method: 'POST',
      path: '/api/v1/send',
      body: {
        from: 'a@example.com',
        to: 'r@example.com',
        subject: 'S',
        text: 'x',
        campaignId: B.campaign,
      },
      expect: notFound,
    },
    {
      name: 'POST /send contactId=B contact',
      method: 'POST',
      path: '/api/v1/send',
      body: {
        from: 'a@example.com',
        to: 'r@example.com',
        subject: 'S',
        text: 'x',
        contactId: B.contact,
      },
      expect: notFound,
    },
    {
      name: 'POST /contact-imports/{A}/start listName=B list name',
      method: 'POST',
      path: `/api/v1/user/contact-imports/${A.import}/start`,
      body: {
        fieldMappings: [{ csvHeader: 'email', serviceField: 'email' }],
        consentConfirmed: true,
        listName: b.listName,
      },
      expect: [202],
    },
    {
      name: 'GET /webhook-deliveries?webhookEndpointId=B',
      method: 'GET',
      path: `/api/v1/user/webhook-deliveries?webhookEndpointId=${B.webhookEndpoint}`,
      expect: [200, 404],
      check: emptyList,
    },
    {
      name: 'GET /messages?campaignId=B',
      method: 'GET',
      path: `/api/v1/user/messages?campaignId=${B.campaign}`,
      expect: [200, 404],
      check: emptyList,
    },
    {
      name: 'GET /messages?recipient=B recipient',
      method: 'GET',
      path: `/api/v1/user/messages?recipient=${encodeURIComponent(b.recipient)}`,
      expect: [200],
      check: emptyList,
    },
    {
      name: 'GET /contacts?search=B email',
      method: 'GET',
      path: `/api/v1/user/contacts?search=${encodeURIComponent(b.email)}`,
      expect: [200],
      check: emptyList,
    },
    {
      name: 'GET /reports/revenue-attribution?campaignId=B',
      method: 'GET',
      path: `/api/v1/user/reports/revenue-attribution?campaignId=${B.campaign}`,
      expect: [200, 404],
      check: (ans) => {
        const o = (
          ans.json as { data?: { overview?: { totalRevenue?: number; totalConversions?: number } } }
        ).data?.overview;
        return o?.totalRevenue === 0 && o.totalConversions === 0
          ? null
          : `report shows B's campaign: ${JSON.stringify(o)}`;
      },
    },
    {
      name: 'X-Organization-Id: B with A key',
      method: 'GET',
      path: '/api/v1/user/contacts',
      headers: { 'x-organization-id': b.org.id },
      expect: [403],
    },
  ];
}

export async function runTenancy(ctx: ResilienceContext, reporter: Reporter): Promise<void> {
  const started = Date.now();
  const http = new HttpClient(ctx.apiUrl, { connections: 8, timeoutMs: 15_000 });
  const doc = await fetchOpenApi(ctx.apiUrl);
  const routes = allRoutes(doc);
  const orgA: OrgFixture = await ctx.createOrg('Tenancy A');
  const orgB: OrgFixture = await ctx.createOrg('Tenancy B');
  const a = await seedOrg(http, orgA, ctx.receiver.url);
  const b = await seedOrg(http, orgB, ctx.receiver.url);
  const before = await quiescent(ctx.db, orgB.id);

  const { cases: byPath, uncovered } = pathCases(doc, routes, a, b);
  const cases = [...byPath, ...referenceCases(a, b)];
  const bSecrets = [orgB.id, ...Object.values(b.ids), b.email, b.recipient];
  const failures: string[] = [];
  let requests = 0;

  for (const c of cases) {
    const headers: Record<string, string> = { 'x-api-key': orgA.apiKey, ...c.headers };
    if (c.body !== undefined) headers['content-type'] = 'application/json';
    requests++;
    let ans: HttpAnswer;
    try {
      ans = await http.request({
        method: c.method,
        path: c.path,
        headers,
        body: c.body === undefined ? undefined : JSON.stringify(c.body),
      });
    } catch (err) {
      failures.push(`${c.name}: ${(err as Error).message}`);
      continue;
    }
    const text = ans.body.toString('utf8');
    // What the answer says about rows (not the echo of the caller's own query in meta URLs).
    const shown = ans.json ? JSON.stringify((ans.json as { data?: unknown }).data ?? null) : text;
    const problem =
      checkAnswer(ans, 'envelope') ??
      (c.expect.includes(ans.status)
        ? null
        : `expected ${c.expect.join('/')}, got ${ans.status}: ${text.slice(0, 200)}`) ??
      (ans.status === 404 && (ans.json as { code?: string }).code !== 'E_ROW_NOT_FOUND'
        ? `404 with code ${(ans.json as { code?: string }).code}`
        : null) ??
      (ans.status < 300 && c.check ? c.check(ans) : null) ??
      (bSecrets.find((s) => shown.includes(s))
        ? `answer shows B's data: ${text.slice(0, 200)}`
        : null);
    if (problem) failures.push(`${c.name}: ${problem}`);
  }

  // B's own view: every seeded resource still readable with B's key, and no row of B changed.
  await new Promise((r) => setTimeout(r, 1000));
  const after = await snapshot(ctx.db, orgB.id);
  const changed = diff(before, after);
  if (changed.length) failures.push(`organization B's rows changed in: ${changed.join(', ')}`);
  for (const [path, id] of [
    ['/api/v1/user/contacts/', b.ids.contact],
    ['/api/v1/user/contact-lists/', b.ids.list],
    ['/api/v1/user/campaigns/', b.ids.campaign],
    ['/api/v1/user/webhook-endpoints/', b.ids.webhookEndpoint],
  ] as const) {
    requests++;
    const ans = await http.request({
      method: 'GET',
      path: `${path}${id}`,
      headers: { 'x-api-key': orgB.apiKey },
    });
    if (ans.status !== 200) failures.push(`B can no longer read ${path}${id}: ${ans.status}`);
  }
  await http.close();

  const idRoutes = new Set(byPath.map((c) => c.name.split(' (')[0]));
  const failed = failures.length + uncovered.length;
  reporter.record({
    section: 'tenancy',
    name: 'cross-organization',
    requests,
    errors: failed,
    lost: 0,
    passed: failed === 0,
    notes: `${idRoutes.size} id routes, ${byPath.length} path cases, ${cases.length - byPath.length} body/query reference cases, ${Object.keys(Object.fromEntries(before)).length} tables compared, ${((Date.now() - started) / 1000).toFixed(1)} s${failed ? `; first: ${[...uncovered, ...failures][0].slice(0, 240)}` : ''}`,
  });
  if (failed) {
    throw new Error(
      `tenancy sweep failed:\n${[...uncovered, ...failures].map((f) => `- ${f}`).join('\n')}`,
    );
  }
}
