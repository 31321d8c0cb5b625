// The one HTTP client of the dashboard: openapi-fetch typed by the paths of the api's OpenAPI
// document (schema.d.ts), with the dashboard's header and the chosen organization on every call and
// the error envelope turned into an ApiError. The credential is the session cookie, which the
// browser sends by itself and no script here can read.
import createClient, { type Middleware } from 'openapi-fetch';
import { ApiError, toErrorBody } from './errors';
import type { paths } from './schema';

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

export interface Envelope<T> {
  success: true;
  message: string;
  data: T;
}

export interface PageMeta {
  total: number;
  perPage: number;
  currentPage: number;
  lastPage: number;
  firstPage: number;
  nextPageUrl: string | null;
  previousPageUrl: string | null;
}

export interface Paged<T> {
  data: T[];
  meta: PageMeta;
}

interface FetchResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/**
 * The envelope of a successful call, typed as T; an ApiError otherwise. The API's OpenAPI
 * document describes requests (paths, query, bodies) but not yet most response bodies, so the
 * caller names the model of `data` (models.ts, written from the contract).
 */
export async function unwrap<T>(call: Promise<FetchResult>): Promise<Envelope<T>> {
  const { data, error, response } = await call;
  if (error !== undefined || !response.ok) {
    throw new ApiError(response.status, toErrorBody(response.status, error ?? data));
  }
  return data as Envelope<T>;
}

/** `data` of a successful call. */
export async function dataOf<T>(call: Promise<FetchResult>): Promise<T> {
  return (await unwrap<T>(call)).data;
}

/** `data` and `meta` of a paginated list. */
export async function pageOf<T>(call: Promise<FetchResult>): Promise<Paged<T>> {
  const body = (await unwrap<T[]>(call)) as Envelope<T[]> & { meta: PageMeta };
  return { data: body.data, meta: body.meta };
}
