// Sends one webhook request with undici: redirects not followed, a per-attempt deadline, the first
// 4 KB of the response kept, and every new connection pinned to an address the SSRF guard checked
// (the name is resolved once, in the connector, and the socket opened to that very address).
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { isIP } from 'node:net';
import { Agent, buildConnector, Dispatcher } from 'undici';
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

/** A connector that resolves and checks the target, then connects to the checked address. */
export function pinnedConnector(
  allowPrivate: boolean,
  lookup: Lookup,
  connectTimeoutMs = 10_000,
): buildConnector.connector {
  const connect = buildConnector({ timeout: connectTimeoutMs });
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
   * One attempt: the status and the first 4 KB of the body are kept, and one deadline covers
   * connecting, sending and the answer. A body cut short by the peer after the status line still
   * counts as a response; a body past DRAIN_LIMIT_BYTES is not read further.
   */
  async send(req: WebhookRequest): Promise<AttemptResult> {
    const url = new URL(req.url);
    const deadline = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    // Over at the deadline, even while the request still waits for a connection (undici drops
    // it as soon as it can).
    const expired = new Promise<null>((resolve) => {
      timer = setTimeout(() => {
        deadline.abort();
        resolve(null);
      }, req.timeoutMs);
    });
    const noResponse = (err: unknown): AttemptResult => ({
      kind: 'no_response',
      reason: describeFailure(err, deadline.signal.aborted, req.timeoutMs),
    });
    try {
      const answered = this.agent.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: 'POST',
        headers: req.headers,
        body: req.body,
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
        signal: deadline.signal,
      });
      answered.catch(() => undefined);
      let res: Dispatcher.ResponseData | null;
      try {
        res = await Promise.race([answered, expired]);
      } catch (err) {
        return noResponse(err);
      }
      if (!res) return noResponse(null);
      const limit = WEBHOOK_DEFAULTS.responseBodyPrefixBytes;
      const chunks: Buffer[] = [];
      let kept = 0;
      let read = 0;
      try {
        for await (const chunk of res.body as AsyncIterable<Buffer>) {
          read += chunk.length;
          if (kept < limit) {
            const part = chunk.subarray(0, limit - kept);
            chunks.push(part);
            kept += part.length;
          }
          // Enough: the prefix is kept, the rest is not worth reading (the connection goes).
          if (read > DRAIN_LIMIT_BYTES) break;
        }
      } catch (err) {
        if (deadline.signal.aborted) return noResponse(err);
      }
      return {
        kind: 'response',
        status: res.statusCode,
        // PostgreSQL text cannot hold NUL characters.
        body: Buffer.concat(chunks, kept).toString('utf8').replaceAll('\u0000', ''),
      };
    } finally {
      clearTimeout(timer);
    }
  }
}
