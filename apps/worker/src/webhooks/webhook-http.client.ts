// Sends one webhook request with undici: redirects not followed, a per-attempt deadline, the first
// 4 KB of the response kept, and every new connection pinned to an address the SSRF guard checked
// (the name is resolved once, in the connector, and the socket opened to that very address).
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import type { AppConfig } from '@app/domain';
import {
  APP_CONFIG,
  AttemptResult,
  bareHost,
  resolveTarget,
  TargetNotAllowedError,
  WEBHOOK_DEFAULTS,
} from '@app/domain';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import { Agent, buildConnector } from 'undici';

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

/** Bytes read past the kept prefix before the response is cut off (keeps the connection reusable). */
const DRAIN_LIMIT_BYTES = 64 * 1024;

/** A connector that resolves and checks the target, then connects to the checked address. */
export function pinnedConnector(
  allowPrivate: boolean,
  connectTimeoutMs = 10_000,
): buildConnector.connector {
  const connect = buildConnector({ timeout: connectTimeoutMs });
  return (opts, callback) => {
    const host = bareHost(opts.hostname);
    resolveTarget(host, allowPrivate).then(
      (target) =>
        connect(
          {
            ...opts,
            hostname: target.address,
            // TLS: SNI and certificate check stay on the name, the socket goes to the address.
            servername: opts.servername ?? (isIP(host) ? undefined : host),
          },
          callback,
        ),
      (err: Error) => callback(err, null),
    );
  };
}

const CODE_REASONS: Record<string, string> = {
  ECONNREFUSED: 'Connection refused',
  ECONNRESET: 'Connection reset by peer',
  EHOSTUNREACH: 'Host unreachable',
  ENETUNREACH: 'Network unreachable',
  EPIPE: 'Connection closed while sending',
  UND_ERR_CONNECT_TIMEOUT: 'Connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'Timed out waiting for the response',
  UND_ERR_BODY_TIMEOUT: 'Timed out reading the response',
  UND_ERR_SOCKET: 'Connection closed before a response',
  UND_ERR_CLOSED: 'Connection closed before a response',
};

/** A short reason for a request that got no HTTP response; never the URL or a header. */
export function describeFailure(err: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `Request timed out after ${timeoutMs / 1000}s`;
  if (err instanceof TargetNotAllowedError) return err.message;
  const e = err as { code?: string; cause?: { code?: string }; name?: string };
  const code = e?.code ?? e?.cause?.code;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME' || code === 'ENODATA') {
    return `DNS lookup failed (${code})`;
  }
  if (code && CODE_REASONS[code]) return CODE_REASONS[code];
  if (code && /^ERR_TLS|^ERR_SSL|CERT|^UNABLE_TO|^SELF_SIGNED/.test(code))
    return `TLS error (${code})`;
  return `Request failed (${code ?? e?.name ?? 'unknown error'})`;
}

@Injectable()
export class WebhookHttpClient implements OnModuleDestroy {
  private readonly agent: Agent;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.agent = new Agent({
      connect: pinnedConnector(config.webhookAllowPrivateTargets),
      maxRedirections: 0,
      keepAliveTimeout: 4_000,
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.destroy();
  }

  async send(req: WebhookRequest): Promise<AttemptResult> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, req.timeoutMs);
    const url = new URL(req.url);
    try {
      const res = await this.agent.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: 'POST',
        headers: req.headers,
        body: req.body,
        signal: controller.signal,
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
      });
      const body = await readPrefix(res.body, WEBHOOK_DEFAULTS.responseBodyPrefixBytes);
      return { kind: 'response', status: res.statusCode, body };
    } catch (err) {
      return { kind: 'no_response', reason: describeFailure(err, timedOut, req.timeoutMs) };
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * The first `keep` bytes of a response body as text. A body cut short by the deadline or the
 * peer still counts as a response: the status line arrived.
 */
function readPrefix(body: Readable, keep: number): Promise<string> {
  // Stream events rather than async iteration: a promise per chunk costs more than the request.
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let read = 0;
    let finished = false;
    const done = () => {
      if (finished) return;
      finished = true;
      body.off('data', onData);
      // PostgreSQL text cannot hold NUL characters.
      resolve(Buffer.concat(chunks).toString('utf8').replaceAll('\u0000', ''));
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (kept < keep) {
        const part = chunk.subarray(0, keep - kept);
        chunks.push(part);
        kept += part.length;
      }
      if (read > DRAIN_LIMIT_BYTES) {
        body.destroy();
        done();
      }
    };
    body.on('data', onData);
    body.once('end', done);
    // The status decides the outcome; a broken body only shortens what is kept.
    body.once('error', done);
    body.once('close', done);
  });
}
