// Webhook endpoints of an organization (§10): plan limits, URL and header rules, the secret shown
// only at creation and regeneration, counters and statistics computed in SQL.
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Page, PageRequest, pageOffset } from '../common/pagination';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { query, sql } from '../database/sql';
import {
  ConflictError,
  FieldError,
  NotFoundError,
  ValidationFailedError,
} from '../errors/domain-errors';
import { Organization } from '../tenancy/organization.entity';
import { WebhookCustomHeader, WebhookEndpoint } from './webhook-endpoint.entity';
import { isEventType } from '../events/event-types';
import { WEBHOOK_DEFAULTS, WEBHOOK_ENDPOINT_LIMITS, WEBHOOK_MESSAGES } from './webhook-event-types';
import { generateWebhookSecret } from './webhook-signature';
import { DnsResolver } from '../dns/resolver';
import { resolveTarget, TargetNotAllowedError } from '../dns/target';
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
  endpoint: WebhookEndpoint;
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

interface CounterRow {
  id: string;
  is_active: boolean;
  delivered: number;
  failed: number;
  success_rate: string;
  last_triggered_at: Date | null;
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
  ) {}

  private repo() {
    return this.ds.getRepository(WebhookEndpoint);
  }

  async create(
    organizationId: string,
    input: WebhookEndpointInput,
  ): Promise<{ view: WebhookEndpointView; secret: string }> {
    this.checkEvents(input.events);
    this.checkHeaders(input.customHeaders ?? []);
    await this.checkUrl(input.url);
    const secret = generateWebhookSecret();
    const endpoint = await this.ds.transaction(async (em) => {
      // Serialises creations per organization so two concurrent ones cannot pass the limit.
      await em.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
        `webhook_endpoints:${organizationId}`,
      ]);
      const org = await em.findOneBy(Organization, { id: organizationId });
      if (!org) throw new NotFoundError('Organization');
      const count = await em.countBy(WebhookEndpoint, { organizationId });
      if (count >= WEBHOOK_ENDPOINT_LIMITS[org.plan]) {
        throw new ConflictError(WEBHOOK_MESSAGES.limitReached);
      }
      return em.save(
        em.create(WebhookEndpoint, {
          organizationId,
          url: input.url,
          description: input.description ?? null,
          events: [...new Set(input.events)],
          isActive: input.isActive ?? true,
          maxRetries: input.maxRetries ?? WEBHOOK_DEFAULTS.maxRetries,
          timeoutSeconds: input.timeoutSeconds ?? WEBHOOK_DEFAULTS.timeoutSeconds,
          customHeaders: input.customHeaders ?? [],
          secret,
        }),
      );
    });
    return { view: await this.view(organizationId, endpoint.id), secret };
  }

  async list(organizationId: string, req: PageRequest): Promise<Page<WebhookEndpointView>> {
    const [endpoints, total] = await this.repo().findAndCount({
      where: { organizationId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: pageOffset(req),
      take: req.limit,
    });
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

  async view(organizationId: string, id: string): Promise<WebhookEndpointView> {
    const endpoint = await this.find(organizationId, id);
    const counters = await this.counters(organizationId, [id]);
    return toView(endpoint, counters.get(id));
  }

  async update(
    organizationId: string,
    id: string,
    changes: WebhookEndpointChanges,
  ): Promise<WebhookEndpointView> {
    const endpoint = await this.find(organizationId, id);
    if (changes.events !== undefined) this.checkEvents(changes.events);
    if (changes.customHeaders !== undefined) this.checkHeaders(changes.customHeaders);
    if (changes.url !== undefined) await this.checkUrl(changes.url);
    const patch: Partial<WebhookEndpoint> = {};
    if (changes.url !== undefined) patch.url = changes.url;
    if (changes.description !== undefined) patch.description = changes.description;
    if (changes.events !== undefined) patch.events = [...new Set(changes.events)];
    if (changes.isActive !== undefined) patch.isActive = changes.isActive;
    if (changes.maxRetries !== undefined) patch.maxRetries = changes.maxRetries;
    if (changes.timeoutSeconds !== undefined) patch.timeoutSeconds = changes.timeoutSeconds;
    if (changes.customHeaders !== undefined) patch.customHeaders = changes.customHeaders;
    if (Object.keys(patch).length) {
      await this.repo().update({ id: endpoint.id, organizationId }, patch);
    }
    return this.view(organizationId, id);
  }

  /**
   * Removes the endpoint, its secret and its delivery history. Attempts have no foreign key to
   * their delivery (see migration 1763700003000), so they are removed here, in a statement after
   * the deliveries' own: an attempt recorded before the deliveries were deleted is visible to it,
   * and none can be recorded after (recording updates the delivery row, which is gone).
   */
  async remove(organizationId: string, id: string): Promise<void> {
    await this.ds.transaction(async (em) => {
      const found: unknown[] = await em.query(
        `SELECT id FROM webhook_endpoints WHERE id = $1 AND organization_id = $2 FOR UPDATE`,
        [id, organizationId],
      );
      if (!found.length) throw new NotFoundError('Webhook endpoint');
      const gone = await query<{ id: string }>(
        em,
        sql`DELETE FROM webhook_deliveries
            WHERE organization_id = ${organizationId} AND webhook_endpoint_id = ${id}
            RETURNING id`,
      );
      if (gone.length)
        await em.query(
          `DELETE FROM webhook_attempts WHERE organization_id = $1 AND webhook_delivery_id = ANY($2)`,
          [organizationId, gone.map((g) => g.id)],
        );
      // Its queue rows go with it (foreign key, cascade).
      await em.query(`DELETE FROM webhook_endpoints WHERE id = $1 AND organization_id = $2`, [
        id,
        organizationId,
      ]);
    });
  }

  async regenerateSecret(
    organizationId: string,
    id: string,
  ): Promise<{ view: WebhookEndpointView; secret: string }> {
    await this.find(organizationId, id);
    const secret = generateWebhookSecret();
    await this.repo().update({ id, organizationId }, { secret });
    return { view: await this.view(organizationId, id), secret };
  }

  /** The endpoint itself, for callers that need its state (never its secret). */
  async find(organizationId: string, id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.repo().findOneBy({ id, organizationId });
    if (!endpoint) throw new NotFoundError('Webhook endpoint');
    return endpoint;
  }

  /**
   * Statistics of §10 and the spec: failing = active, with at least one finished delivery and a
   * success rate below 95; the overall rate is rebuilt from each endpoint's rounded rate.
   */
  async statistics(organizationId: string): Promise<WebhookStatistics> {
    const rows = await this.counterRows(organizationId);
    let totalDeliveries = 0;
    let weighted = 0; // Σ (rate × 10) × total, an integer
    let failing = 0;
    let active = 0;
    for (const r of rows) {
      const total = r.delivered + r.failed;
      const rate = Number(r.success_rate);
      totalDeliveries += total;
      weighted += Math.round(rate * 10) * total;
      if (r.is_active) {
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

  private async counters(organizationId: string, ids: string[]): Promise<Map<string, CounterRow>> {
    if (!ids.length) return new Map();
    const rows = await this.counterRows(organizationId, ids);
    return new Map(rows.map((r) => [r.id, r]));
  }

  /** Counters of every endpoint of the organization (or of `ids`) in one statement. */
  private counterRows(organizationId: string, ids?: string[]): Promise<CounterRow[]> {
    return this.ds.query(
      `SELECT e.id, e.is_active, c.delivered, c.failed,
         CASE WHEN c.delivered + c.failed = 0 THEN 0
              ELSE round(100.0 * c.delivered / (c.delivered + c.failed), 1) END AS success_rate,
         lt.created_at AS last_triggered_at
       FROM webhook_endpoints e
       CROSS JOIN LATERAL (
         SELECT count(*) FILTER (WHERE d.status = 'delivered')::int AS delivered,
                count(*) FILTER (WHERE d.status = 'failed')::int AS failed
         FROM webhook_deliveries d WHERE d.webhook_endpoint_id = e.id
       ) c
       LEFT JOIN LATERAL (
         SELECT d.created_at FROM webhook_deliveries d WHERE d.webhook_endpoint_id = e.id
         ORDER BY d.created_at DESC, d.id DESC LIMIT 1
       ) lt ON true
       WHERE e.organization_id = $1 ${ids ? 'AND e.id = ANY($2)' : ''}`,
      ids ? [organizationId, ids] : [organizationId],
    );
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

function toView(endpoint: WebhookEndpoint, c: CounterRow | undefined): WebhookEndpointView {
  return {
    endpoint,
    totalDeliveries: c ? c.delivered + c.failed : 0,
    successRate: c ? Number(c.success_rate) : 0,
    lastTriggeredAt: c?.last_triggered_at ?? null,
  };
}
