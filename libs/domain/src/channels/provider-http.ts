// The one HTTP client of the provider adapters (§17): every provider API is reached at a base URL
// an organization may set (`settings.apiBaseUrl`), so every connection is made like a webhook's:
// the name resolved once, each address checked against the special-purpose ranges unless
// WEBHOOK_ALLOW_PRIVATE_TARGETS, the socket opened to the checked address. Redirects are not
// followed, every request has a deadline, and a response body is read up to a bound.
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { Agent } from 'undici';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { DnsResolver } from '../dns/resolver';
import { bareHost, resolveTarget, ResolvedTarget } from '../dns/target';
import { describeFailure, pinnedConnector } from '../webhooks/webhook-http.client';

export interface ProviderRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  timeoutMs?: number;
}

/** A provider's answer: its status, lower-case headers and the first `MAX_BODY_BYTES` of its body. */
export interface ProviderResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** A request that got no HTTP answer (refused, timed out, DNS, TLS, a blocked address). */
export class ProviderUnreachableError extends Error {}

const DEFAULT_TIMEOUT_MS = 15_000;
/** Provider answers are small JSON or XML documents; anything beyond is not read. */
const MAX_BODY_BYTES = 256 * 1024;

@Injectable()
export class ProviderHttp implements OnModuleDestroy {
  private readonly agent: Agent;
  /** Extra trusted CA (PROVIDER_TLS_CA), for adapters that open their own TLS connections. */
  readonly ca: string | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dns: DnsResolver,
  ) {
    const ca = config.providerTlsCa;
    this.ca = ca && !ca.trimStart().startsWith('-----BEGIN') ? readFileSync(ca, 'utf8') : ca;
    this.agent = new Agent({
      connect: pinnedConnector(
        config.webhookAllowPrivateTargets,
        (host) => dns.lookup(host),
        10_000,
        this.ca,
      ),
      maxRedirections: 0,
      keepAliveTimeout: 10_000,
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.destroy();
  }

  /**
   * The address to open a connection to for `hostname`, checked like a webhook target: for
   * adapters that hold their own connections (HTTP/2).
   */
  target(hostname: string): Promise<ResolvedTarget> {
    return resolveTarget(bareHost(hostname), this.config.webhookAllowPrivateTargets, (host) =>
      this.dns.lookup(host),
    );
  }

  /** One request; throws ProviderUnreachableError when no HTTP answer came. */
  async request(req: ProviderRequest): Promise<ProviderResponse> {
    const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const url = new URL(req.url);
      const res = await this.agent.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: req.method,
        headers: req.headers,
        body: req.body,
        signal,
      });
      const chunks: Buffer[] = [];
      let kept = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        if (kept < MAX_BODY_BYTES) {
          chunks.push(chunk.subarray(0, MAX_BODY_BYTES - kept));
          kept += Math.min(chunk.length, MAX_BODY_BYTES - kept);
        }
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) {
        if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
      }
      return { status: res.statusCode, headers, body: Buffer.concat(chunks, kept) };
    } catch (err) {
      throw new ProviderUnreachableError(describeFailure(err, signal.aborted, timeoutMs));
    }
  }
}
