// Property-based fuzzing of every HTTP route (issue 10, hostile input): for each route group at
// least RESILIENCE_FUZZ_RUNS generated requests (valid-shaped, mutated and hostile bodies, query
// strings and path ids, odd headers), then a fixed battery per route (bodies over the limit, 10k-
// and 100k-level JSON, wrong content types, invalid UTF-8 in body, path and query; on the send
// API, megabytes of tracked HTML of hostile shape). Every answer must be a 2xx of the route's kind
// or a 4xx error envelope (§4), within the deadline; afterwards no error-level line and no uncaught
// exception may appear in the processes' logs.
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import {
  ArbitraryContext,
  badUtf8Body,
  BAD_UTF8_ESCAPES,
  bodyFor,
  hostileString,
  IdPools,
  malformedJson,
  ownObject,
  PATHOLOGICAL_HTML,
  pathIdFor,
  queryFor,
  RawJson,
  safeEncode,
  toJsonText,
  validFor,
} from './support/arbitraries';
import { loginBursts } from './login-bursts';
import type { Reporter, ResilienceContext } from './support/context';
import { checkAnswer } from './support/envelope';
import { logProblems } from './support/logs';
import { HttpAnswer, HttpClient, HttpRequest, RequestTimeoutError } from './support/http';
import {
  allRoutes,
  deref,
  fetchOpenApi,
  resourceKindOf,
  RouteSpec,
  routeKey,
  SuccessShape,
} from './support/routes';
import { multipart, RESOURCE_KINDS, ResourceKind, seedOrg } from './support/seed';
import { SCOPES } from '@app/domain/tenancy/scopes';

const MiB = 1024 * 1024;

/** What each body field is set to, alone, in the battery. */
const SINGLE_FIELD_VALUES: unknown[] = [
  null,
  {},
  [],
  '',
  true,
  -1,
  new RawJson('-0'),
  new RawJson('1e309'),
  'x'.repeat(100_000),
  [null],
  { __proto__: null, polluted: true },
  ownObject([['__proto__', { polluted: true }]]),
];
const LOGIN_PATH = '/api/v1/auth/login';
/** Body limits of §4: the send API takes 15 MiB, everything else 1 MiB. */
const bodyLimit = (r: RouteSpec) => (r.path === '/api/v1/send' ? 15 * MiB : MiB);
/**
 * Sizes of the battery's tracked HTML of hostile shape (§16): just under the 5 MB tracking cap
 * (scanned, links rewritten) and over it (sent untracked).
 */
const HUGE_HTML_CHARS = [5 * MiB - 64 * 1024, 6 * MiB];

interface FuzzCase {
  route: RouteSpec;
  request: HttpRequest;
  /** Sent from the second loopback address (bad credentials on routes that count failures). */
  stranger?: boolean;
  /** A status the battery requires exactly. */
  expectStatus?: number;
  /** Statuses the battery forbids on top of the general rules. */
  forbidStatus?: number[];
  /**
   * Sent alone, after the concurrent battery: megabyte bodies test the worker's event loop, not
   * how many of them the api parses at once within the deadline.
   */
  alone?: boolean;
  label: string;
}

interface Violation {
  route: string;
  problem: string;
  count: number;
  example: string;
}

interface GroupStats {
  cases: number;
  requests: number;
  statuses: Map<string, number>;
  routes: Set<string>;
}

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer`);
  return n;
}

/** JSON text n levels deep, built as text (a recursive serializer would overflow first). */
const deepArrayText = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const deepObjectText = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

/** What undici lets through as a header value (it refuses control characters itself). */
const headerSafe = (s: string) => s.replace(/[^\t\x20-\x7e\x80-\xff]/g, '').slice(0, 4000);

/** Runs `tasks` with at most `concurrency` in flight. */
async function pool<T>(tasks: T[], concurrency: number, run: (t: T) => Promise<void>) {
  let next = 0;
  const workers = Array.from({ length: Math.min(concurrency, tasks.length) }, async () => {
    while (next < tasks.length) await run(tasks[next++]);
  });
  await Promise.all(workers);
}

function describe(req: HttpRequest): string {
  const body =
    req.body === undefined
      ? ''
      : Buffer.isBuffer(req.body)
        ? ` body(${req.body.length} bytes): ${req.body.subarray(0, 160).toString('latin1')}`
        : ` body(${req.body.length} chars): ${req.body.slice(0, 160)}`;
  const headers = Object.entries(req.headers ?? {})
    .filter(([k]) => k !== 'x-request-id')
    // Credentials shown by their first characters only.
    .map(([k, v]) => {
      const secret = k === 'x-api-key' || k === 'authorization';
      return `${k}: ${secret ? v.slice(0, 15) + '…' : v.slice(0, 60)}`;
    })
    .join('; ');
  return `${req.method} ${req.path.slice(0, 300)} [${headers}]${body}`;
}

export async function runFuzz(ctx: ResilienceContext, reporter: Reporter): Promise<void> {
  const runs = envInt('RESILIENCE_FUZZ_RUNS', 10_000);
  const concurrency = envInt('RESILIENCE_FUZZ_CONCURRENCY', 16);
  const timeoutMs = envInt('RESILIENCE_FUZZ_TIMEOUT_MS', 15_000);
  const seed = process.env.RESILIENCE_FUZZ_SEED
    ? Number(process.env.RESILIENCE_FUZZ_SEED)
    : Math.floor(Math.random() * 2 ** 31);
  const runId = randomBytes(3).toString('hex');
  const requestIdPrefix = `fz${runId}-`;
  const logStart = ctx.logs().length;
  const started = Date.now();

  // ---- the routes, from the app itself -------------------------------------------------------
  const doc = await fetchOpenApi(ctx.apiUrl);
  const routes = allRoutes(doc);
  const kinds = new Map<string, Array<ResourceKind | undefined>>();
  for (const r of routes) {
    kinds.set(
      routeKey(r),
      r.pathParams.map((p) => resourceKindOf(r.path, p)),
    );
  }

  // ---- an organization with one resource of every kind, and a key that is never throttled -----
  const admin = new HttpClient(ctx.apiUrl, { connections: 4, timeoutMs: 30_000 });
  const org = await ctx.createOrg(`Fuzz ${runId}`);
  const seeded = await seedOrg(admin, org, ctx.receiver.url);
  const fuzzKey = await admin.json<{ id: string; key: string }>(
    'POST',
    '/api/v1/user/api-keys',
    org.apiKey,
    { name: 'fuzzer', scopes: [...SCOPES], rateLimitPerMinute: 1_000_000 },
  );
  const pools = Object.fromEntries(
    RESOURCE_KINDS.map((k) => [k, [seeded.ids[k], ...(seeded.extra[k] ?? [])]]),
  ) as IdPools;
  // The fuzzer's own key and the organization's fixture key are never aimed at.
  pools.apiKey = pools.apiKey.filter((id) => id !== fuzzKey.id);
  const actx: ArbitraryContext = {
    doc,
    pools,
    receiverUrl: ctx.receiver.url,
    csvHeaders: seeded.csvHeaders,
    orgId: org.id,
  };

  const http = new HttpClient(ctx.apiUrl, { connections: concurrency, timeoutMs });
  // Bad credentials on the send API and wrong logins count toward the per-IP failure limit (§8,
  // §16): they come from another loopback address so the rest of the suite's address is never
  // blocked (a blocked address would find the send API refusing it for 15 minutes).
  const apiHost = new URL(ctx.apiUrl).hostname;
  const strangerAddress = ['127.0.0.1', 'localhost'].includes(apiHost) ? '127.0.0.2' : undefined;
  const stranger = strangerAddress
    ? new HttpClient(ctx.apiUrl.replace('localhost', '127.0.0.1'), {
        connections: 2,
        timeoutMs,
        localAddress: strangerAddress,
      })
    : undefined;

  // ---- executing and judging one case --------------------------------------------------------
  const violations = new Map<string, Violation>();
  const stats = new Map<string, GroupStats>();
  let requestSeq = 0;
  let requests = 0;
  let timeouts = 0;

  const statsOf = (group: string) => {
    let s = stats.get(group);
    if (!s) {
      s = { cases: 0, requests: 0, statuses: new Map(), routes: new Set() };
      stats.set(group, s);
    }
    return s;
  };

  function violation(route: RouteSpec, problem: string, c: FuzzCase) {
    const key = `${routeKey(route)} | ${problem.replace(/\d{3,}/g, 'N').slice(0, 120)}`;
    const v = violations.get(key);
    if (v) v.count++;
    else {
      violations.set(key, {
        route: routeKey(route),
        problem,
        count: 1,
        example: `${c.label}: ${describe(c.request)}`,
      });
    }
  }

  function harvest(route: RouteSpec, a: HttpAnswer) {
    if (a.status < 200 || a.status >= 300 || route.method !== 'POST') return;
    const data = (a.json as { data?: Record<string, unknown> } | undefined)?.data;
    if (!data || typeof data !== 'object') return;
    const last = route.path.split('/').pop()!;
    let kind: ResourceKind | undefined;
    let id: unknown;
    if (route.path === '/api/v1/send') [kind, id] = ['message', data.jobId];
    else if (route.path === '/api/v1/user/contact-imports')
      [kind, id] = ['import', (data.import as { id?: string } | undefined)?.id];
    else if (last === 'test') [kind, id] = ['webhookDelivery', data.id];
    else if (!last.startsWith('{') && route.pathParams.length === 0) {
      try {
        kind = resourceKindOf(`${route.path}/{id}`, 'id');
      } catch {
        kind = undefined;
      }
      id = data.id;
    }
    if (kind && typeof id === 'string' && pools[kind].length < 60) pools[kind].push(id);
  }

  async function execute(c: FuzzCase): Promise<void> {
    const { route } = c;
    const s = statsOf(route.group);
    s.requests++;
    s.routes.add(routeKey(route));
    requests++;
    const request: HttpRequest = {
      ...c.request,
      headers: { ...c.request.headers, 'x-request-id': `${requestIdPrefix}${++requestSeq}` },
    };
    let answer: HttpAnswer;
    try {
      answer = await (c.stranger && stranger ? stranger : http).request(request);
    } catch (err) {
      if (err instanceof RequestTimeoutError) timeouts++;
      const code = (err as { code?: string }).code;
      const status = err instanceof RequestTimeoutError ? 'timeout' : `transport ${code ?? ''}`;
      s.statuses.set(status, (s.statuses.get(status) ?? 0) + 1);
      violation(route, `${status}: ${(err as Error).message}`, c);
      return;
    }
    const bucket = String(answer.status);
    s.statuses.set(bucket, (s.statuses.get(bucket) ?? 0) + 1);
    let problem = checkAnswer(answer, route.success as SuccessShape);
    if (!problem && c.expectStatus !== undefined && answer.status !== c.expectStatus) {
      problem = `expected ${c.expectStatus}, got ${answer.status}: ${answer.body.toString('utf8').slice(0, 160)}`;
    }
    if (!problem && c.forbidStatus?.includes(answer.status)) {
      problem = `${c.label} answered ${answer.status}`;
    }
    if (problem) violation(route, problem, c);
    else harvest(route, answer);
  }

  // ---- generated cases -------------------------------------------------------------------------
  const credentialHeaders = (): Record<string, string> => ({ 'x-api-key': fuzzKey.key });
  const headerVariant = fc.oneof(
    { weight: 40, arbitrary: fc.constant({ kind: 'normal' as const }) },
    { weight: 3, arbitrary: fc.constant({ kind: 'bearer' as const }) },
    {
      weight: 3,
      arbitrary: fc
        .oneof(fc.constant(org.id), fc.uuid(), hostileString.map(headerSafe))
        .map((orgHeader) => ({ kind: 'org' as const, orgHeader })),
    },
    {
      weight: 4,
      arbitrary: fc
        .constantFrom(
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data',
          'multipart/form-data; boundary=zzz',
          'application/json; charset=utf-16',
          'application/json; charset=iso-8859-1',
          'application/json; charset=bogus',
          'application/vnd.api+json',
          'application/json, text/plain',
          'text/json',
          'application/xml',
          '*/*',
          '',
        )
        .map((contentType) => ({ kind: 'contentType' as const, contentType })),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom<Record<string, string>>(
          {},
          { 'x-api-key': '' },
          { 'x-api-key': 'bk_live_' + 'A'.repeat(40) },
          { 'x-api-key': fuzzKey.key.slice(0, -1) },
          { 'x-api-key': 'bk_live_\u00ff\u00fe' },
          { authorization: 'Bearer ' },
          { authorization: 'Bearer at_' + 'x'.repeat(43) },
          { authorization: 'Basic dXNlcjpwYXNz' },
          { authorization: 'Bearer ' + 'b'.repeat(4000) },
          { authorization: `Bearer ${fuzzKey.key}`, 'x-api-key': 'bk_live_nope' },
        )
        .map((creds) => ({ kind: 'credentials' as const, creds })),
    },
  );

  function jsonBodyArb(route: RouteSpec): fc.Arbitrary<string | Buffer | undefined> {
    if (route.bodyKind === 'json' && route.body) {
      return fc.oneof(
        { weight: 14, arbitrary: bodyFor(actx, route.body).map(toJsonText) },
        { weight: 1, arbitrary: malformedJson },
        { weight: 1, arbitrary: badUtf8Body },
      );
    }
    return fc.oneof(
      { weight: 12, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)) },
      { weight: 1, arbitrary: malformedJson },
    );
  }

  const csvCell = fc.oneof(
    fc
      .string({ unit: 'grapheme', maxLength: 30 })
      .map((s) => (/[",;\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s)),
    fc.emailAddress(),
    fc.constantFrom(
      '=cmd|"/c calc"!A1',
      '+1',
      '-1',
      '@SUM(1)',
      '"unterminated',
      '\u0000',
      '',
      '\ufeff',
    ),
  );
  const csvArb: fc.Arbitrary<Buffer> = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(
          fc.array(fc.oneof(fc.constantFrom(...seeded.csvHeaders), fc.string({ maxLength: 20 })), {
            minLength: 1,
            maxLength: 8,
          }),
          fc.array(fc.array(csvCell, { maxLength: 10 }), { maxLength: 20 }),
          fc.constantFrom(',', ';', '\t'),
          fc.constantFrom('\n', '\r\n', '\r'),
          fc.boolean(),
        )
        .map(([head, rows, sep, eol, bom]) =>
          Buffer.from(
            (bom ? '\ufeff' : '') + [head, ...rows].map((r) => r.join(sep)).join(eol) + eol,
          ),
        ),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 2000 }).map((b) => Buffer.from(b)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        Buffer.alloc(0),
        Buffer.from('\ufeff'),
        Buffer.from('email\n'),
        Buffer.from(Array.from({ length: 2000 }, (_, i) => `c${i}`).join(',') + '\n'),
        Buffer.from('email\n' + 'a'.repeat(300_000) + '\n'),
        Buffer.from('a,b\n"x,y\n'),
        Buffer.from('email,name\n\u0000\u0000,\u0000\n'),
        Buffer.from('email\n', 'utf16le'),
        Buffer.from([0xef, 0xbb, 0xbf, 0xff, 0xfe, 0x0a]),
      ),
    },
  );
  const uploadArb = fc
    .record({
      csv: csvArb,
      fileName: fc.oneof(
        fc.constant('contacts.csv'),
        fc.constantFrom(
          '../../../etc/passwd',
          '..\\..\\x.csv',
          'a'.repeat(1000) + '.csv',
          '',
          '.csv',
          'x.exe',
          'n\u0000ul.csv',
          'ü😀.csv',
        ),
        fc.string({ maxLength: 40 }).map((s) => s.replace(/["\r\n]/g, '')),
      ),
      field: fc.oneof(
        { weight: 8, arbitrary: fc.constant('file') },
        { weight: 1, arbitrary: fc.constantFrom('upload', '', 'file[]', 'FILE') },
      ),
      partType: fc.constantFrom('text/csv', 'application/octet-stream', 'image/png', ''),
      shape: fc.oneof(
        { weight: 10, arbitrary: fc.constant('ok' as const) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            'noBoundary' as const,
            'wrongBoundary' as const,
            'truncated' as const,
            'twoFiles' as const,
            'json' as const,
          ),
        },
      ),
    })
    .map(({ csv, fileName, field, partType, shape }) => {
      const form = multipart(field, fileName, csv, partType);
      const headers: Record<string, string> = {
        ...credentialHeaders(),
        'content-type': form.contentType,
      };
      let body = form.body;
      if (shape === 'noBoundary') headers['content-type'] = 'multipart/form-data';
      if (shape === 'wrongBoundary') headers['content-type'] = 'multipart/form-data; boundary=nope';
      if (shape === 'truncated') body = body.subarray(0, Math.max(1, body.length - 30));
      if (shape === 'twoFiles') {
        const second = multipart(field, fileName, csv, partType);
        const boundary = form.contentType.split('boundary=')[1];
        const again = second.body
          .toString('latin1')
          .replaceAll(second.contentType.split('boundary=')[1], boundary);
        body = Buffer.concat([
          body.subarray(0, body.length - boundary.length - 6),
          Buffer.from('\r\n'),
          Buffer.from(again, 'latin1'),
        ]);
      }
      if (shape === 'json') {
        headers['content-type'] = 'application/json';
        body = Buffer.from(JSON.stringify({ file: csv.toString('utf8') }));
      }
      return { body, headers, label: `upload ${shape}` };
    });

  function caseArb(route: RouteSpec): fc.Arbitrary<FuzzCase> {
    const routeKinds = kinds.get(routeKey(route))!;
    const ids = fc.tuple(...routeKinds.map((k) => pathIdFor(pools, k)));
    const query = queryFor(actx, route.query);
    if (route.bodyKind === 'multipart') {
      return fc.tuple(uploadArb, query).map(([u, q]) => ({
        route,
        request: {
          method: route.method,
          path: `${route.path}${q}`,
          headers: u.headers,
          body: u.body,
        },
        label: u.label,
      }));
    }
    return fc
      .record({ ids, query, body: jsonBodyArb(route), variant: headerVariant })
      .map(({ ids, query, body, variant }) => {
        let path = route.path;
        route.pathParams.forEach((p, i) => (path = path.replace(`{${p}}`, ids[i])));
        const headers: Record<string, string> = route.public ? {} : credentialHeaders();
        if (body !== undefined) headers['content-type'] = 'application/json';
        let stranger = false;
        switch (variant.kind) {
          case 'bearer':
            delete headers['x-api-key'];
            headers.authorization = `Bearer ${fuzzKey.key}`;
            break;
          case 'org':
            headers['x-organization-id'] = variant.orgHeader;
            break;
          case 'contentType':
            if (variant.contentType) headers['content-type'] = variant.contentType;
            else delete headers['content-type'];
            break;
          case 'credentials':
            // Without a second source address, the send API's failure counter is left alone.
            if (!strangerAddress && route.path === '/api/v1/send') break;
            delete headers['x-api-key'];
            Object.assign(headers, variant.creds);
            stranger = true;
            break;
        }
        // Every login may be a wrong one: always from the second address.
        if (route.path === LOGIN_PATH) stranger = true;
        return {
          route,
          request: { method: route.method, path: `${path}${query}`, headers, body },
          stranger,
          label: `generated ${variant.kind}`,
        };
      });
  }

  // Each group gets `runs` cases spread over its routes; every route's share is split into chunks
  // (own seed each) so one slow route does not hold the run. DELETE routes go last: they remove
  // the rows the other routes aim at.
  const byGroup = new Map<string, RouteSpec[]>();
  for (const r of routes) byGroup.set(r.group, [...(byGroup.get(r.group) ?? []), r]);
  interface Task {
    route: RouteSpec;
    runs: number;
    seed: number;
  }
  const phases: Task[][] = [[], []];
  let chunkSeed = seed;
  for (const group of [...byGroup.keys()].sort()) {
    // Without a second source address, generated logins would block the suite's own.
    const groupRoutes = byGroup.get(group)!.filter((r) => strangerAddress || r.path !== LOGIN_PATH);
    const perRoute = Math.ceil(runs / groupRoutes.length);
    for (const route of groupRoutes) {
      for (let done = 0; done < perRoute; done += 250) {
        phases[route.method === 'DELETE' ? 1 : 0].push({
          route,
          runs: Math.min(250, perRoute - done),
          seed: chunkSeed++,
        });
      }
    }
  }
  // Interleave routes so the API sees a mix, not 16 copies of one handler.
  for (const phase of phases)
    phase.sort((a, b) => ((a.seed * 7919) % 1009) - ((b.seed * 7919) % 1009));

  // ---- the fixed battery: limits, nesting, content types, bytes --------------------------------
  const battery: FuzzCase[] = [];
  const realPath = (r: RouteSpec) => {
    let path = r.path;
    for (const [i, p] of r.pathParams.entries()) {
      const kind = kinds.get(routeKey(r))![i];
      path = path.replace(`{${p}}`, kind ? pools[kind][0] : 'x');
    }
    return path;
  };
  for (const route of routes) {
    const base = realPath(route);
    const headers = route.public ? {} : credentialHeaders();
    const json = { ...headers, 'content-type': 'application/json' };
    const add = (label: string, req: Omit<HttpRequest, 'method'>, extra: Partial<FuzzCase> = {}) =>
      battery.push({ route, label, request: { method: route.method, ...req }, ...extra });
    if (route.method !== 'GET') {
      const limit = bodyLimit(route);
      const over = `{"x":"${'a'.repeat(limit)}"}`;
      add('body over the limit', { path: base, headers: json, body: over }, { expectStatus: 413 });
      if (limit > MiB) {
        add(
          'body over 1 MiB within the send limit',
          { path: base, headers: json, body: `{"x":"${'a'.repeat(2 * MiB)}"}` },
          { forbidStatus: [413] },
        );
      }
      if (route.path === '/api/v1/send') {
        for (const [shape, make] of Object.entries(PATHOLOGICAL_HTML)) {
          for (const chars of HUGE_HTML_CHARS) {
            const body = JSON.stringify({
              from: 'Fuzz <fuzz@example.com>',
              to: 'tracked@example.com',
              subject: 'Tracked',
              text: 'x',
              html: `<html><body>${make(chars)}</body></html>`,
              track: { opens: true, clicks: true },
            });
            add(
              `tracked HTML ${(chars / MiB).toFixed(2)} MiB: ${shape}`,
              { path: base, headers: json, body },
              { expectStatus: 202, alone: true },
            );
          }
        }
      }
      for (const levels of [10_000, 100_000]) {
        add(`${levels}-level array`, { path: base, headers: json, body: deepArrayText(levels) });
        add(`${levels}-level object`, { path: base, headers: json, body: deepObjectText(levels) });
        add(`${levels}-level array in a field`, {
          path: base,
          headers: json,
          body: `{"name":${deepArrayText(levels)},"rules":${deepObjectText(levels)}}`,
        });
      }
      for (const type of [
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/xml',
        'application/json; charset=utf-16le',
        'application/octet-stream',
      ]) {
        add(`content-type ${type}`, {
          path: base,
          headers: { ...headers, 'content-type': type },
          body: '{"name":"x"}',
        });
      }
      add('form body with bracket keys', {
        path: base,
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'a[b][c]=1&__proto__[x]=1&constructor[prototype][y]=2&name=%FF',
      });
      for (const bytes of [
        [0xff],
        [0xc3, 0x28],
        [0xed, 0xa0, 0x80],
        [0xf8, 0x88, 0x80, 0x80, 0x80],
        [0xc0, 0xaf],
      ]) {
        add(`invalid UTF-8 ${Buffer.from(bytes).toString('hex')} in body`, {
          path: base,
          headers: json,
          body: Buffer.concat([Buffer.from('{"name":"'), Buffer.from(bytes), Buffer.from('"}')]),
        });
      }
      add('UTF-16 body', {
        path: base,
        headers: json,
        body: Buffer.from('{"name":"x"}', 'utf16le'),
      });
    }
    if (route.bodyKind === 'json' && route.body) {
      // Every field of a valid body, one at a time, set to what the schema does not allow.
      const schema = deref(doc, route.body) ?? {};
      const fields = Object.keys((schema.properties as Record<string, unknown>) ?? {});
      const [valid] = fc.sample(validFor(actx, route.body, 'body'), { seed, numRuns: 1 });
      for (const field of fields) {
        for (const bad of SINGLE_FIELD_VALUES) {
          const body = ownObject([
            ...Object.entries((valid as Record<string, unknown>) ?? {}).filter(
              ([k]) => k !== field,
            ),
            [field, bad],
          ]);
          add(`field ${field}=${toJsonText(bad).slice(0, 20)}`, {
            path: base,
            headers: json,
            body: toJsonText(body),
          });
        }
      }
    }
    for (const esc of BAD_UTF8_ESCAPES) {
      add(`query ${esc}`, { path: `${base}?page=${esc}&search=${esc}&${esc}=1`, headers });
    }
    add('raw bytes in query', { path: `${base}?search=\u00ff\u00fe&page=\u00c3\u0028`, headers });
    add('long query', { path: `${base}?search=${'q'.repeat(6000)}`, headers });
    add('many query parameters', {
      path: `${base}?${Array.from({ length: 500 }, (_, i) => `p${i}=${i}`).join('&')}`,
      headers,
    });
    for (const [i, p] of route.pathParams.entries()) {
      for (const bad of [...BAD_UTF8_ESCAPES, '\u00ff', safeEncode('\ud800'), 'a'.repeat(2000)]) {
        const path = realPath(route).split('/');
        const at = route.path.split('/').indexOf(`{${p}}`);
        path[at] = bad;
        add(`path ${p}=${bad.slice(0, 12)} (#${i})`, { path: path.join('/'), headers });
      }
    }
  }
  // Generated cases without DELETE, the battery (while the seeded rows still exist), then the
  // battery's DELETE cases and the generated DELETE cases.
  let generatedMs = 0;
  let generatedRequests = 0;
  const runGenerated = async (phase: Task[]) => {
    const t0 = Date.now();
    const r0 = requests;
    await pool(phase, concurrency, async (task) => {
      await fc.assert(
        fc.asyncProperty(caseArb(task.route), async (c) => {
          statsOf(task.route.group).cases++;
          await execute(c);
          return true;
        }),
        { numRuns: task.runs, seed: task.seed, endOnFailure: true },
      );
    });
    generatedMs += Date.now() - t0;
    generatedRequests += requests - r0;
  };
  await runGenerated(phases[0]);
  const kept = battery.filter((c) => c.route.method !== 'DELETE');
  await pool(
    kept.filter((c) => !c.alone),
    concurrency,
    execute,
  );
  await pool(
    kept.filter((c) => c.alone),
    1,
    execute,
  );
  await pool(
    battery.filter((c) => c.route.method === 'DELETE'),
    concurrency,
    execute,
  );
  for (const c of battery) statsOf(c.route.group).cases++;
  await runGenerated(phases[1]);

  // ---- login bursts, from fresh addresses -------------------------------------------------------
  const burstProblems = await loginBursts(ctx.apiUrl, reporter, seed);

  // ---- the logs: no error line, no uncaught exception from any of it ---------------------------
  await new Promise((r) => setTimeout(r, 2000));
  const logLines = ctx.logs().slice(logStart);
  const problems = logProblems(logLines);

  await http.close();
  await stranger?.close();
  await admin.close();

  // ---- the report ---------------------------------------------------------------------------
  const seconds = (Date.now() - started) / 1000;
  const rps = generatedRequests / (generatedMs / 1000);
  const byRoute = new Map<string, Violation[]>();
  for (const v of violations.values()) byRoute.set(v.route, [...(byRoute.get(v.route) ?? []), v]);
  for (const [group, s] of [...stats.entries()].sort()) {
    const groupViolations = [...violations.values()].filter((v) =>
      routes.some((r) => r.group === group && routeKey(r) === v.route),
    );
    const errors = groupViolations.reduce((n, v) => n + v.count, 0);
    const statuses = [...s.statuses.entries()]
      .sort()
      .map(([k, n]) => `${k}:${n}`)
      .join(' ');
    reporter.record({
      section: 'fuzz',
      name: group,
      requests: s.requests,
      errors,
      lost: 0,
      passed: errors === 0 && s.cases >= runs,
      notes: `${s.cases} cases over ${s.routes.size} routes; statuses ${statuses}${
        groupViolations.length ? `; first: ${groupViolations[0].problem.slice(0, 200)}` : ''
      }`,
    });
  }
  reporter.record({
    section: 'fuzz',
    name: 'logs',
    requests: 0,
    errors: problems.length,
    lost: 0,
    passed: problems.length === 0,
    notes: `${logLines.length} log lines scanned; ${problems.length} error-level or uncaught${
      problems.length ? `; first: ${problems[0].slice(0, 300)}` : ''
    }`,
  });
  reporter.record({
    section: 'fuzz',
    name: 'throughput',
    // The groups' rows already count these requests and their hangs; this row adds the rate.
    requests: 0,
    errors: 0,
    lost: 0,
    passed: true,
    notes: `${requests} requests (${timeouts} past the ${timeoutMs} ms deadline) over ${routes.length} routes, ${runs} cases per group, seed ${seed}, ${rps.toFixed(0)} req/s generated (concurrency ${concurrency}), ${battery.length} battery requests, ${seconds.toFixed(1)} s in all`,
  });

  if (violations.size || problems.length || burstProblems.length) {
    const lines = [...violations.values()]
      .sort((a, b) => b.count - a.count)
      .map((v) => `- ${v.route}: ${v.problem} (x${v.count})\n    e.g. ${v.example}`);
    throw new Error(
      `fuzz found ${violations.size} kinds of bad answer and ${problems.length} log problems (seed ${seed}):\n` +
        lines.join('\n') +
        (problems.length ? `\nlogs:\n${problems.slice(0, 20).join('\n')}` : '') +
        (burstProblems.length ? `\nlogin bursts:\n${burstProblems.slice(0, 20).join('\n')}` : ''),
    );
  }
}
