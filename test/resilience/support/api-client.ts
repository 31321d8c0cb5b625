// HTTP calls of the suite: undici with a hard per-request deadline, so a request that hangs is
// counted as a hang instead of stalling the run. Never throws: network errors are status 0.
import { Agent, request } from 'undici';

export interface ApiResult<T = unknown> {
  status: number;
  body: T;
  ms: number;
  /** Set when no HTTP answer came: 'timeout' (the deadline passed) or the network error code. */
  error?: string;
}

export const agent = new Agent({
  connections: 512,
  keepAliveTimeout: 10_000,
  pipelining: 1,
  connect: { timeout: 10_000 },
});

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly headers: Record<string, string> = {},
    private readonly timeoutMs = 30_000,
  ) {}

  withKey(apiKey: string): ApiClient {
    return new ApiClient(this.baseUrl, { ...this.headers, 'x-api-key': apiKey }, this.timeoutMs);
  }

  get<T = unknown>(path: string, timeoutMs?: number): Promise<ApiResult<T>> {
    return this.call<T>('GET', path, undefined, timeoutMs);
  }
  post<T = unknown>(path: string, body?: unknown, timeoutMs?: number): Promise<ApiResult<T>> {
    return this.call<T>('POST', path, body, timeoutMs);
  }
  patch<T = unknown>(path: string, body?: unknown, timeoutMs?: number): Promise<ApiResult<T>> {
    return this.call<T>('PATCH', path, body, timeoutMs);
  }
  delete<T = unknown>(path: string, timeoutMs?: number): Promise<ApiResult<T>> {
    return this.call<T>('DELETE', path, undefined, timeoutMs);
  }

  async call<T = unknown>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    timeoutMs = this.timeoutMs,
  ): Promise<ApiResult<T>> {
    const started = performance.now();
    const headers: Record<string, string> = { ...this.headers };
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      const res = await request(this.baseUrl + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        dispatcher: agent,
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await res.body.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: keep the text
      }
      return { status: res.statusCode, body: parsed as T, ms: performance.now() - started };
    } catch (err) {
      const e = err as { name?: string; code?: string; message?: string };
      const timedOut = e.name === 'TimeoutError' || e.name === 'AbortError';
      return {
        status: 0,
        body: undefined as T,
        ms: performance.now() - started,
        error: timedOut ? 'timeout' : (e.code ?? e.message ?? 'error'),
      };
    }
  }

  /** multipart/form-data upload of one file field (contact imports). */
  async upload<T = unknown>(
    path: string,
    field: string,
    fileName: string,
    content: string,
  ): Promise<ApiResult<T>> {
    const started = performance.now();
    const form = new FormData();
    form.append(field, new Blob([content], { type: 'text/csv' }), fileName);
    try {
      const res = await fetch(this.baseUrl + path, {
        method: 'POST',
        headers: this.headers,
        body: form,
        signal: AbortSignal.timeout(this.timeoutMs * 4),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON
      }
      return { status: res.status, body: parsed as T, ms: performance.now() - started };
    } catch (err) {
      return {
        status: 0,
        body: undefined as T,
        ms: performance.now() - started,
        error: (err as Error).message,
      };
    }
  }
}

/** The `data` of a success envelope, or throws with what came back instead. */
export function dataOf<T>(res: ApiResult, what: string, expected: number[] = [200, 201, 202]): T {
  if (!expected.includes(res.status)) {
    const detail = res.error ?? JSON.stringify(res.body)?.slice(0, 300);
    throw new Error(`${what}: expected ${expected.join('/')}, got ${res.status} ${detail}`);
  }
  return (res.body as { data: T }).data;
}
