// The route table of the hostile-input sections, derived from the API's own OpenAPI document
// (/docs/json, generated from the controllers) plus the routes the document leaves out on purpose.
// test/resilience/route-coverage.e2e-spec.ts proves the table equals what the app registers, so a
// new route is fuzzed and swept for tenancy without anyone remembering to add it.
import type { ResourceKind } from './seed';

export type Schema = Record<string, unknown>;

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, Schema> };
}

interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}

interface OpenApiOperation {
  parameters?: OpenApiParameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: Schema }> };
  security?: Array<Record<string, string[]>>;
  'x-required-scopes'?: string[];
}

export interface QueryParam {
  name: string;
  required: boolean;
  schema: Schema;
}

/** What a 2xx answer of the route looks like. */
export type SuccessShape = 'envelope' | 'csv' | 'gif' | 'redirect' | 'health' | 'html' | 'callback';

export interface RouteSpec {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** OpenAPI template, e.g. /api/v1/user/contacts/{id}. */
  path: string;
  group: string;
  pathParams: string[];
  query: QueryParam[];
  body?: Schema;
  bodyKind: 'json' | 'multipart' | 'none';
  /** No credential needed. */
  public: boolean;
  success: SuccessShape;
  /** Not in the OpenAPI document (excluded controllers). */
  undocumented?: boolean;
}

/** Route groups the fuzzer runs its case budget over, by path prefix (first match wins). */
export const ROUTE_GROUPS: Array<[prefix: string, group: string]> = [
  ['/api/v1/user/contact-lists', 'lists'],
  ['/api/v1/user/contact-tags', 'tags'],
  ['/api/v1/user/contact-segments', 'segments'],
  ['/api/v1/user/contact-imports', 'imports'],
  ['/api/v1/user/contacts', 'contacts'],
  ['/api/v1/send', 'send'],
  ['/api/v1/user/messages', 'messages'],
  ['/api/v1/user/webhook-endpoints', 'webhooks'],
  ['/api/v1/user/webhook-deliveries', 'webhooks'],
  ['/api/v1/user/campaigns', 'campaigns'],
  ['/api/v1/user/sending-domains', 'domains'],
  ['/api/v1/user/channel-providers', 'channels'],
  ['/api/v1/user/conversions', 'conversions-reports'],
  ['/api/v1/user/reports', 'conversions-reports'],
  ['/api/v1/user/api-keys', 'keys-org'],
  ['/api/v1/user/me', 'keys-org'],
  ['/api/v1/user/organization', 'keys-org'],
  ['/api/v1/auth', 'keys-org'],
  ['/health', 'public'],
  ['/t/', 'public'],
  ['/u/', 'public'],
  ['/channels/callbacks', 'public'],
];

export function groupOf(path: string): string {
  const hit = ROUTE_GROUPS.find(
    ([prefix]) => path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`),
  );
  if (!hit) {
    throw new Error(
      `route ${path} belongs to no fuzz group: add its prefix to ROUTE_GROUPS (test/resilience/support/routes.ts)`,
    );
  }
  return hit[1];
}

/**
 * Routes the OpenAPI document excludes on purpose: tracking and unsubscribe links, and where
 * providers post their callbacks (none of them an API a client calls).
 */
export const UNDOCUMENTED_ROUTES: RouteSpec[] = [
  // POST: a status or an inbound message; GET: a provider's check of the URL (hub.challenge).
  ...(['GET', 'POST'] as const).map((method): RouteSpec => ({
    method,
    path: '/channels/callbacks/{providerId}',
    group: 'public',
    pathParams: ['providerId'],
    query: [],
    bodyKind: 'none',
    public: true,
    success: 'callback',
    undocumented: true,
  })),
  {
    method: 'GET',
    path: '/t/o/{file}',
    group: 'public',
    pathParams: ['file'],
    query: [],
    bodyKind: 'none',
    public: true,
    success: 'gif',
    undocumented: true,
  },
  {
    method: 'GET',
    path: '/t/c/{token}',
    group: 'public',
    pathParams: ['token'],
    query: [],
    bodyKind: 'none',
    public: true,
    success: 'redirect',
    undocumented: true,
  },
  ...(['GET', 'POST'] as const).map((method): RouteSpec => ({
    method,
    path: '/u/{token}',
    group: 'public',
    pathParams: ['token'],
    query: [],
    bodyKind: 'none',
    public: true,
    success: 'html',
    undocumented: true,
  })),
];

function successShape(method: string, path: string): SuccessShape {
  if (path.startsWith('/health')) return 'health';
  if (method.toUpperCase() === 'GET' && path.endsWith('/errors')) return 'csv';
  return 'envelope';
}

export function routesFromOpenApi(doc: OpenApiDocument): RouteSpec[] {
  const routes: RouteSpec[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const params = op.parameters ?? [];
      const content = op.requestBody?.content ?? {};
      const json = content['application/json'];
      const bodyKind = json
        ? 'json'
        : content['multipart/form-data']
          ? 'multipart'
          : ('none' as const);
      routes.push({
        method: method.toUpperCase() as RouteSpec['method'],
        path,
        group: groupOf(path),
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        query: params
          .filter((p) => p.in === 'query')
          .map((p) => ({ name: p.name, required: Boolean(p.required), schema: p.schema ?? {} })),
        body: json?.schema,
        bodyKind,
        public: !op.security?.length && !op['x-required-scopes'],
        success: successShape(method, path),
      });
    }
  }
  return routes;
}

/** Every route the fuzzer and the tenancy sweep cover: the documented ones and the excluded ones. */
export function allRoutes(doc: OpenApiDocument): RouteSpec[] {
  return [...routesFromOpenApi(doc), ...UNDOCUMENTED_ROUTES];
}

export function routeKey(r: { method: string; path: string }): string {
  return `${r.method.toUpperCase()} ${r.path}`;
}

export async function fetchOpenApi(apiUrl: string): Promise<OpenApiDocument> {
  const res = await fetch(`${apiUrl}/docs/json`);
  if (!res.ok) throw new Error(`GET /docs/json answered ${res.status}`);
  return (await res.json()) as OpenApiDocument;
}

/** Resolves a `$ref` of the document's components. */
export function deref(doc: OpenApiDocument, schema: Schema | undefined): Schema | undefined {
  let s = schema;
  for (let i = 0; s && typeof s.$ref === 'string' && i < 10; i++) {
    const name = (s.$ref as string).split('/').pop()!;
    s = doc.components?.schemas?.[name];
  }
  return s;
}

/** Collection segment of a path → the kind of resource its `{id}` names. */
const COLLECTION_KINDS: Record<string, ResourceKind> = {
  contacts: 'contact',
  emails: 'email',
  sms: 'sms',
  whatsapp: 'whatsapp',
  telegram: 'telegram',
  imessage: 'imessage',
  push: 'push',
  'contact-tags': 'tag',
  tags: 'tag',
  'contact-lists': 'list',
  members: 'contact',
  'contact-segments': 'segment',
  'contact-imports': 'import',
  messages: 'message',
  'webhook-endpoints': 'webhookEndpoint',
  'webhook-deliveries': 'webhookDelivery',
  campaigns: 'campaign',
  'sending-domains': 'sendingDomain',
  'channel-providers': 'channelProvider',
  'api-keys': 'apiKey',
};

/** Path parameters that are tokens, not resource ids. */
export const TOKEN_PARAMS = new Set([
  '/t/o/{file}:file',
  '/t/c/{token}:token',
  '/u/{token}:token',
  '/channels/callbacks/{providerId}:providerId',
]);

/**
 * The kind of resource a path parameter names: the collection segment right before it decides
 * (`/contacts/{contactId}/emails/{channelId}`: contact, then email). Throws for a parameter it
 * cannot place, so a new route fails the run until this table knows it.
 */
export function resourceKindOf(path: string, param: string): ResourceKind | undefined {
  if (TOKEN_PARAMS.has(`${path}:${param}`)) return undefined;
  const segments = path.split('/');
  const at = segments.indexOf(`{${param}}`);
  const kind = at > 0 ? COLLECTION_KINDS[segments[at - 1]] : undefined;
  if (!kind) {
    throw new Error(
      `path parameter ${param} of ${path} names no known resource kind: extend COLLECTION_KINDS (test/resilience/support/routes.ts)`,
    );
  }
  return kind;
}
