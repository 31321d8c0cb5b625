// A keep-alive HTTP client for the hostile-input sections: raw bodies (any bytes, any content
// type), a hard per-request deadline so a hang is reported instead of waited for, and the parsed
// JSON body when there is one.
import { Pool } from 'undici';

export interface HttpRequest {
  method: string;
  /** Path and query exactly as sent (may carry percent-escapes or raw latin1 bytes). */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The parsed body when it is JSON; undefined otherwise. */
  json?: unknown;
  ms: number;
}

export class RequestTimeoutError extends Error {
  constructor(
    readonly request: HttpRequest,
    timeoutMs: number,
  ) {
    super(`no answer within ${timeoutMs} ms: ${request.method} ${request.path.slice(0, 200)}`);
  }
}

export interface HttpClientOptions {
  connections?: number;
  timeoutMs?: number;
  /** Source address of the connections (another loopback address keeps per-IP counters apart). */
  localAddress?: string;
}

export class HttpClient {
  private readonly pool: Pool;
  readonly timeoutMs: number;
  requests = 0;

  constructor(
    readonly baseUrl: string,
    opts: HttpClientOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 15_000;
    this.pool = new Pool(new URL(baseUrl).origin, {
      connections: opts.connections ?? 16,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      localAddress: opts.localAddress,
    });
  }

  async request(req: HttpRequest): Promise<HttpAnswer> {
    this.requests++;
    const started = performance.now();
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), this.timeoutMs);
    try {
      const res = await this.pool.request({
        method: req.method as 'GET',
        path: req.path,
        headers: req.headers,
        body: req.body,
        signal: abort.signal,
      });
      const body = Buffer.from(await res.body.arrayBuffer());
      const type = String(res.headers['content-type'] ?? '');
      let json: unknown;
      if (type.includes('json') && body.length) {
        try {
          json = JSON.parse(body.toString('utf8'));
        } catch {
          json = undefined;
        }
      }
      return {
        status: res.statusCode,
        headers: res.headers,
        body,
        json,
        ms: performance.now() - started,
      };
    } catch (err) {
      const e = err as { name?: string; code?: string };
      if (
        abort.signal.aborted ||
        e.code === 'UND_ERR_HEADERS_TIMEOUT' ||
        e.code === 'UND_ERR_BODY_TIMEOUT'
      ) {
        throw new RequestTimeoutError(req, this.timeoutMs);
      }
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  /** A JSON request that must succeed with a 2xx; returns the envelope's `data`. */
  async json<T = Record<string, unknown>>(
    method: string,
    path: string,
    apiKey: string,
    body?: unknown,
  ): Promise<T> {
    const res = await this.request({
      method,
      path,
      headers: {
        'x-api-key': apiKey,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status >= 300) {
      throw new Error(
        `${method} ${path} answered ${res.status}: ${res.body.toString('utf8').slice(0, 500)}`,
      );
    }
    return (res.json as { data: T }).data;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
