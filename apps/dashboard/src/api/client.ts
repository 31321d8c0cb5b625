// The one HTTP client of the dashboard: openapi-fetch typed by the paths of the api's OpenAPI
// document (schema.d.ts), with the dashboard's header and the chosen organization on every call and
// the error envelope turned into an ApiError; what a call answers is typed by the route's
// documented success body. The credential is the session cookie, which the browser sends by
// itself and no script here can read.
import createClient, { type Middleware } from 'openapi-fetch';
import { ApiError, toErrorBody } from './errors';
import type { components, paths } from './schema';

export interface Credentials {
  signedIn: boolean;
  organizationId: string | null;
}

/** Read by the middleware on each request; written only by the session provider. */
const current: Credentials = { signedIn: false, organizationId: null };
let onUnauthorized: () => void = () => undefined;

export function setCredentials(next: Credentials): void {
  current.signedIn = next.signedIn;
  current.organizationId = next.organizationId;
}

/** Called when a signed-in request is answered 401 (session expired or revoked). */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

const credentials: Middleware = {
  onRequest({ request }) {
    // The api accepts the session cookie only beside this header, which a form on another site
    // cannot send (and a script there cannot either: the api allows no cross-origin calls).
    request.headers.set('X-Requested-With', 'dashboard');
    if (current.organizationId) request.headers.set('X-Organization-Id', current.organizationId);
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401 && current.signedIn) onUnauthorized();
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: window.location.origin });
api.use(credentials);

/** What an openapi-fetch call resolves to: `data` is the typed success body, `error` the other. */
interface FetchResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The success body of a call's result type (the branch whose `data` is not optional). */
type SuccessBody<R> = R extends { data: infer B } ? B : never;

/** `data` of a success body: the envelope's model. */
type DataOf<B> = B extends { data: infer T } ? T : never;

/** A paginated list's success body: its models and `meta`. */
type PageOf<B> = B extends { data: infer T; meta: infer M } ? { data: T; meta: M } : never;

/** The page meta of GET list routes, as the paginator reads it. */
export type PageMeta = components['schemas']['PageMetaResponse'];

/**
 * The success body of a call (the envelope of the route's 2xx answer, typed from the OpenAPI
 * document); an ApiError otherwise.
 */
export async function unwrap<R extends FetchResult>(call: Promise<R>): Promise<SuccessBody<R>> {
  const { data, error, response } = await call;
  if (error !== undefined || !response.ok) {
    throw new ApiError(response.status, toErrorBody(response.status, error ?? data));
  }
  return data as SuccessBody<R>;
}

/** `data` of a successful call. */
export async function dataOf<R extends FetchResult>(
  call: Promise<R>,
): Promise<DataOf<SuccessBody<R>>> {
  return ((await unwrap(call)) as { data: DataOf<SuccessBody<R>> }).data;
}

/** `data` and `meta` of a paginated list. */
export async function pageOf<R extends FetchResult>(
  call: Promise<R>,
): Promise<PageOf<SuccessBody<R>>> {
  const body = (await unwrap(call)) as PageOf<SuccessBody<R>>;
  return { data: body.data, meta: body.meta } as PageOf<SuccessBody<R>>;
}
