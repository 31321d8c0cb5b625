// Webhook endpoints of an organization (§10): plan limits, URL and header rules, the secret shown
// only at creation and regeneration, and each endpoint's delivery counters and statistics.
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { Page, PageRequest } from '../common/pagination';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { inTransaction } from '../database/transaction';
import { DnsResolver } from '../dns/resolver';
import { resolveTarget, TargetNotAllowedError } from '../dns/target';
import {
  ConflictError,
  FieldError,
  NotFoundError,
  ValidationFailedError,
} from '../errors/domain-errors';
import { isEventType } from '../events/event-types';
import { OrganizationService } from '../tenancy/organization.service';
import { EndpointCounters, WebhookDeliveryLogRepository } from './webhook-delivery-log.repository';
import type { WebhookCustomHeader } from './webhook-endpoint.entity';
import { EndpointRecord, WebhookEndpointRepository } from './webhook-endpoint.repository';
import { WEBHOOK_DEFAULTS, WEBHOOK_ENDPOINT_LIMITS, WEBHOOK_MESSAGES } from './webhook-event-types';
import { generateWebhookSecret } from './webhook-signature';
import { parseWebhookUrl } from './webhook-target-guard';

export interface WebhookEndpointInput {
  url: string;
  description?: string | null;
  events: string[];
  isActive?: boolean;
  maxRetries?: number;
  customHeaders?: WebhookCustomHeader[];
  timeoutSeconds?: number;
}

export type WebhookEndpointChanges = Partial<WebhookEndpointInput>;

/** An endpoint with its delivery counters (never its secret). */
export interface WebhookEndpointView {
  endpoint: EndpointRecord;
  totalDeliveries: number;
  successRate: number;
  lastTriggeredAt: Date | null;
}

export interface WebhookStatistics {
  totalEndpoints: number;
  activeEndpoints: number;
  inactiveEndpoints: number;
  failingEndpoints: number;
  totalDeliveries: number;
  overallSuccessRate: number;
}

/** RFC 9110 token: what a header name may contain. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible ASCII, space and tab, and obs-text; no CR, LF or NUL. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Headers that frame or route the request: an endpoint may not set them. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
  'proxy-authorization',
  'proxy-connection',
]);
/** The DNS check at creation gives up after this long and accepts the URL; delivery re-checks. */
const CREATION_LOOKUP_TIMEOUT_MS = 3000;
const FAILING_BELOW_PERCENT = 95;

@Injectable()
export class WebhookEndpointService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dns: DnsResolver,
    private readonly endpoints: WebhookEndpointRepository,
    private readonly log: WebhookDeliveryLogRepository,
    private readonly organizations: OrganizationService,
  ) {}

  async create(
    organizationId: OrgId,
    input: WebhookEndpointInput,
  ): Promise<{ view: WebhookEndpointView; secret: string }> {
    this.checkEvents(input.events);
    this.checkHeaders(input.customHeaders ?? []);
    await this.checkUrl(input.url);
    const secret = generateWebhookSecret();
    const { plan } = await this.organizations.get(organizationId);
    const id = await inTransaction(this.ds, async (em) => {
      await this.endpoints.lockCreations(organizationId, em);
      if ((await this.endpoints.count(organizationId, em)) >= WEBHOOK_ENDPOINT_LIMITS[plan])
        throw new ConflictError(WEBHOOK_MESSAGES.limitReached);
      return this.endpoints.insert(
        organizationId,
        {
          url: input.url,
          description: input.description ?? null,
          events: [...new Set(input.events)],
          isActive: input.isActive ?? true,
          maxRetries: input.maxRetries ?? WEBHOOK_DEFAULTS.maxRetries,
          timeoutSeconds: input.timeoutSeconds ?? WEBHOOK_DEFAULTS.timeoutSeconds,
          customHeaders: input.customHeaders ?? [],
        },
        secret,
        em,
      );
    });
    return { view: await this.view(organizationId, id), secret };
  }

  async list(organizationId: OrgId, req: PageRequest): Promise<Page<WebhookEndpointView>> {
    const [endpoints, total] = await this.endpoints.page(organizationId, req);
    const counters = await this.counters(
      organizationId,
      endpoints.map((e) => e.id),
    );
    return new Page(
      endpoints.map((e) => toView(e, counters.get(e.id))),
      total,
      req,
    );
  }

  async view(organizationId: OrgId, id: string): Promise<WebhookEndpointView> {
    const endpoint = await this.find(organizationId, id);
    const counters = await this.counters(organizationId, [id]);
    return toView(endpoint, counters.get(id));
  }

  async update(
    organizationId: OrgId,
    id: string,
    changes: WebhookEndpointChanges,
  ): Promise<WebhookEndpointView> {
    const endpoint = await this.find(organizationId, id);
    if (changes.events !== undefined) this.checkEvents(changes.events);
    if (changes.customHeaders !== undefined) this.checkHeaders(changes.customHeaders);
    if (changes.url !== undefined) await this.checkUrl(changes.url);
    await this.endpoints.update(organizationId, endpoint.id, {
      ...changes,
      events: changes.events && [...new Set(changes.events)],
    });
    return this.view(organizationId, id);
  }

  /** Removes the endpoint, its secret and its delivery history. */
  async remove(organizationId: OrgId, id: string): Promise<void> {
    if (!(await this.endpoints.remove(organizationId, id)))
      throw new NotFoundError('Webhook endpoint');
  }

  async regenerateSecret(
    organizationId: OrgId,
    id: string,
  ): Promise<{ view: WebhookEndpointView; secret: string }> {
    await this.find(organizationId, id);
    const secret = generateWebhookSecret();
    await this.endpoints.setSecret(organizationId, id, secret);
    return { view: await this.view(organizationId, id), secret };
  }

  /** The endpoint itself, for callers that need its state (never its secret). */
  async find(organizationId: OrgId, id: string): Promise<EndpointRecord> {
    const endpoint = await this.endpoints.find(organizationId, id);
    if (!endpoint) throw new NotFoundError('Webhook endpoint');
    return endpoint;
  }

  /**
   * Statistics of §10 and the spec: failing = active, with at least one finished delivery and a
   * success rate below 95; the overall rate is rebuilt from each endpoint's rounded rate.
   */
  async statistics(organizationId: OrgId): Promise<WebhookStatistics> {
    const rows = await this.log.counters(organizationId);
    let totalDeliveries = 0;
    let weighted = 0; // Σ (rate × 10) × total, an integer
    let failing = 0;
    let active = 0;
    for (const r of rows) {
      const total = r.delivered + r.failed;
      const rate = r.successRate;
      totalDeliveries += total;
      weighted += Math.round(rate * 10) * total;
      if (r.isActive) {
        active += 1;
        if (total > 0 && rate < FAILING_BELOW_PERCENT) failing += 1;
      }
    }
    return {
      totalEndpoints: rows.length,
      activeEndpoints: active,
      inactiveEndpoints: rows.length - active,
      failingEndpoints: failing,
      totalDeliveries,
      overallSuccessRate: totalDeliveries ? Math.round(weighted / totalDeliveries) / 10 : 0,
    };
  }

  private async counters(
    organizationId: OrgId,
    ids: string[],
  ): Promise<Map<string, EndpointCounters>> {
    if (!ids.length) return new Map();
    const rows = await this.log.counters(organizationId, ids);
    return new Map(rows.map((r) => [r.id, r]));
  }

  private checkEvents(events: string[]): void {
    if (!Array.isArray(events) || events.length === 0) {
      throw ValidationFailedError.field('events', 'required', WEBHOOK_MESSAGES.noEvents);
    }
    const unknown = events.filter((e) => !isEventType(e));
    if (unknown.length) {
      throw ValidationFailedError.field(
        'events',
        'enum',
        `Unknown event type: ${unknown.join(', ')}`,
      );
    }
  }

  private checkHeaders(headers: WebhookCustomHeader[]): void {
    const errors: FieldError[] = [];
    if (headers.length > WEBHOOK_DEFAULTS.customHeadersLimit) {
      errors.push({
        field: 'customHeaders',
        rule: 'maxLength',
        message: `At most ${WEBHOOK_DEFAULTS.customHeadersLimit} custom headers are allowed`,
      });
    }
    headers.forEach((h, i) => {
      if (!HEADER_NAME.test(h.key) || h.key.length > 256) {
        errors.push({
          field: `customHeaders.${i}.key`,
          rule: 'type',
          message: 'Header name must be a valid HTTP header name',
        });
      } else if (RESERVED_HEADERS.has(h.key.toLowerCase())) {
        errors.push({
          field: `customHeaders.${i}.key`,
          rule: 'enum',
          message: `Header ${h.key} cannot be set on a webhook endpoint`,
        });
      }
      if (!HEADER_VALUE.test(h.value) || h.value.length > 4096) {
        errors.push({
          field: `customHeaders.${i}.value`,
          rule: 'type',
          message: 'Header value must not contain line breaks or control characters',
        });
      }
    });
    if (errors.length) throw new ValidationFailedError(errors);
  }

  /**
   * http(s) only; unless private targets are allowed, a literal private address or a name that
   * resolves to one is refused. A name that does not resolve (yet) is accepted: the dispatcher
   * checks every attempt's address anyway.
   */
  private async checkUrl(raw: string): Promise<void> {
    const invalid = () => ValidationFailedError.field('url', 'url', WEBHOOK_MESSAGES.invalidUrl);
    const url = parseWebhookUrl(raw);
    if (!url) throw invalid();
    if (this.config.webhookAllowPrivateTargets) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        resolveTarget(url.hostname, false, (host) => this.dns.lookup(host)),
        new Promise((resolve) => {
          timer = setTimeout(resolve, CREATION_LOOKUP_TIMEOUT_MS);
        }),
      ]);
    } catch (err) {
      if (err instanceof TargetNotAllowedError) throw invalid();
    } finally {
      clearTimeout(timer);
    }
  }
}

function toView(endpoint: EndpointRecord, c: EndpointCounters | undefined): WebhookEndpointView {
  return {
    endpoint,
    totalDeliveries: c ? c.delivered + c.failed : 0,
    successRate: c ? c.successRate : 0,
    lastTriggeredAt: c?.lastTriggeredAt ?? null,
  };
}
