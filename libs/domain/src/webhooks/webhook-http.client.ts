// Sends one webhook request with undici: redirects not followed, a per-attempt deadline, the first
// 4 KB of the response kept, and every new connection pinned to an address the SSRF guard checked
// (the name is resolved once, in the connector, and the socket opened to that very address).
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { Agent, buildConnector } from 'undici';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { DnsResolver } from '../dns/resolver';
import { bareHost, Lookup, resolveTarget, TargetNotAllowedError } from '../dns/target';
import { WEBHOOK_DEFAULTS } from './webhook-event-types';
import type { AttemptResult } from './webhook-retry-policy';

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

/** Bytes read past the kept prefix before the response is cut off (keeps the connection reusable). */
const DRAIN_LIMIT_BYTES = 64 * 1024;

/**
 * A connector that resolves and checks the target, then connects to the checked address (`ca`: an
 * extra trusted certificate authority for TLS, added to the public ones, which TLS's own `ca`
 * option would replace).
 */
export function pinnedConnector(
  allowPrivate: boolean,
  lookup: Lookup,
  connectTimeoutMs = 10_000,
  ca?: string,
): buildConnector.connector {
  const connect = buildConnector({
    timeout: connectTimeoutMs,
    ...(ca ? { ca: [...rootCertificates, ca] } : {}),
  });
  return (opts, callback) => {
    const host = bareHost(opts.hostname);
    resolveTarget(host, allowPrivate, lookup).then(
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

/** Raised into a request our own deadline ended; the attempt is already resolved by then. */
class DeadlineError extends Error {}

@Injectable()
export class WebhookHttpClient implements OnModuleDestroy {
  private readonly agent: Agent;

  constructor(@Inject(APP_CONFIG) config: AppConfig, dns: DnsResolver) {
    this.agent = new Agent({
      connect: pinnedConnector(config.webhookAllowPrivateTargets, (host) => dns.lookup(host)),
      maxRedirections: 0,
      keepAliveTimeout: 4_000,
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.destroy();
  }

  /**
   * One attempt, through undici's dispatcher interface: a handler keeps the status and the first
   * 4 KB of the body, a timer enforces the attempt's deadline (connect, send and answer). Cheaper
   * per request than `request()` with an AbortSignal and a body stream, which matters at
   * thousands of attempts per second.
   */
  send(req: WebhookRequest): Promise<AttemptResult> {
    const url = new URL(req.url);
    return new Promise<AttemptResult>((resolve) => {
      let settled = false;
      let status = 0;
      let abort: ((err?: Error) => void) | undefined;
      let deadline: DeadlineError | undefined;
      const chunks: Buffer[] = [];
      let kept = 0;
      let read = 0;
      const settle = (result: AttemptResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const response = (): AttemptResult => ({
        kind: 'response',
        status,
        // PostgreSQL text cannot hold NUL characters.
        body: Buffer.concat(chunks, kept).toString('utf8').replaceAll('\u0000', ''),
      });
      const timer = setTimeout(() => {
        // Resolved now, even while the request still waits for a connection; undici is told
        // to drop it as soon as it can be.
        deadline = new DeadlineError();
        settle({
          kind: 'no_response',
          reason: describeFailure(deadline, true, req.timeoutMs),
        });
        abort?.(deadline);
      }, req.timeoutMs);
      this.agent.dispatch(
        {
          origin: url.origin,
          path: url.pathname + url.search,
          method: 'POST',
          headers: req.headers,
          body: req.body,
          headersTimeout: req.timeoutMs,
          bodyTimeout: req.timeoutMs,
        },
        {
          onConnect: (a) => {
            abort = a;
            if (deadline) a(deadline);
          },
          onHeaders: (statusCode) => {
            // 1xx answers are informational: the final one follows.
            if (statusCode >= 200) status = statusCode;
            return true;
          },
          onData: (chunk) => {
            read += chunk.length;
            if (kept < WEBHOOK_DEFAULTS.responseBodyPrefixBytes) {
              const part = chunk.subarray(0, WEBHOOK_DEFAULTS.responseBodyPrefixBytes - kept);
              chunks.push(part);
              kept += part.length;
            }
            if (read > DRAIN_LIMIT_BYTES) {
              // Enough: the prefix is kept, the rest is not worth reading (the connection goes).
              settle(response());
              abort?.(new Error('response body too large'));
            }
            return true;
          },
          onComplete: () => settle(response()),
          onError: (err) => {
            // The status line arrived: a body cut short by the peer still counts as a response.
            if (status) settle(response());
            else
              settle({ kind: 'no_response', reason: describeFailure(err, false, req.timeoutMs) });
          },
        },
      );
    });
  }
}
