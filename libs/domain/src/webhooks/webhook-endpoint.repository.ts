// Every statement of the API on webhook_endpoints: creation under a lock per organization, pages,
// reads, updates, the secret, and removal with the endpoint's delivery history.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { PageRequest, pageOffset } from '../common/pagination';
import { encryptedColumn } from '../crypto/field-encryption';
import { join, query, sql, Sql } from '../database/sql';
import { inTransaction } from '../database/transaction';
import {
  customHeadersColumn,
  WebhookCustomHeader,
  WebhookEndpoint,
} from './webhook-endpoint.entity';

/** An endpoint as the API reads it: every column but the secret. */
export type EndpointRecord = Omit<WebhookEndpoint, 'secret'>;

/** The columns an endpoint is created with or changed to. */
export interface EndpointFields {
  url: string;
  description: string | null;
  events: string[];
  isActive: boolean;
  maxRetries: number;
  timeoutSeconds: number;
  customHeaders: WebhookCustomHeader[];
}

const ENDPOINT_COLUMNS = sql`
  id, organization_id AS "organizationId", url, description, events, is_active AS "isActive",
  max_retries AS "maxRetries", timeout_seconds AS "timeoutSeconds",
  custom_headers AS "customHeaders", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** Column of each changeable field, and how its value is stored. */
const COLUMNS: { [K in keyof EndpointFields]: (v: EndpointFields[K]) => Sql } = {
  url: (v) => sql`url = ${v}`,
  description: (v) => sql`description = ${v}`,
  events: (v) => sql`events = ${v}::text[]`,
  isActive: (v) => sql`is_active = ${v}`,
  maxRetries: (v) => sql`max_retries = ${v}`,
  timeoutSeconds: (v) => sql`timeout_seconds = ${v}`,
  customHeaders: (v) => sql`custom_headers = ${customHeadersColumn.to(v)}`,
};

function toRecord(row: Omit<EndpointRecord, 'customHeaders'> & { customHeaders: string }) {
  return { ...row, customHeaders: customHeadersColumn.from(row.customHeaders) } as EndpointRecord;
}

@Injectable()
export class WebhookEndpointRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Serialises the organization's creations until `em`'s transaction ends, so two concurrent
   * ones cannot both pass the plan's limit.
   */
  async lockCreations(organizationId: OrgId, em: EntityManager): Promise<void> {
    await query(
      em,
      sql`SELECT pg_advisory_xact_lock(hashtextextended(${`webhook_endpoints:${organizationId}`}, 0))`,
    );
  }

  async count(organizationId: OrgId, em: DataSource | EntityManager = this.ds): Promise<number> {
    const [row] = await query<{ n: number }>(
      em,
      sql`SELECT count(*)::int AS n FROM webhook_endpoints
      WHERE organization_id = ${organizationId}::uuid`,
    );
    return row.n;
  }

  /** Creates an endpoint with its secret (encrypted at rest, like its headers); its id. */
  async insert(
    organizationId: OrgId,
    fields: EndpointFields,
    secret: string,
    em: EntityManager,
  ): Promise<string> {
    const [row] = await query<{ id: string }>(
      em,
      sql`INSERT INTO webhook_endpoints
        (organization_id, url, description, events, is_active, max_retries, timeout_seconds,
         custom_headers, secret)
      VALUES (${organizationId}::uuid, ${fields.url}, ${fields.description},
        ${fields.events}::text[], ${fields.isActive}, ${fields.maxRetries},
        ${fields.timeoutSeconds}, ${customHeadersColumn.to(fields.customHeaders)},
        ${encryptedColumn.to(secret)})
      RETURNING id`,
    );
    return row.id;
  }

  /** One page of the organization's endpoints, newest first, and how many it has. */
  async page(organizationId: OrgId, req: PageRequest): Promise<[EndpointRecord[], number]> {
    const rows = await query<Omit<EndpointRecord, 'customHeaders'> & { customHeaders: string }>(
      this.ds,
      sql`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints
      WHERE organization_id = ${organizationId}::uuid
      ORDER BY created_at DESC, id DESC
      LIMIT ${req.limit} OFFSET ${pageOffset(req)}`,
    );
    return [rows.map(toRecord), await this.count(organizationId)];
  }

  async find(organizationId: OrgId, id: string): Promise<EndpointRecord | null> {
    const rows = await query<Omit<EndpointRecord, 'customHeaders'> & { customHeaders: string }>(
      this.ds,
      sql`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints
      WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid`,
    );
    return rows[0] ? toRecord(rows[0]) : null;
  }

  /** Changes the given fields (none: nothing happens). */
  async update(organizationId: OrgId, id: string, changes: Partial<EndpointFields>): Promise<void> {
    const set: Sql[] = [];
    for (const key of Object.keys(COLUMNS) as (keyof EndpointFields)[]) {
      const value = changes[key];
      if (value !== undefined) set.push((COLUMNS[key] as (v: unknown) => Sql)(value));
    }
    if (!set.length) return;
    await this.updateColumns(organizationId, id, join(set, ', '));
  }

  async setSecret(organizationId: OrgId, id: string, secret: string): Promise<void> {
    await this.updateColumns(organizationId, id, sql`secret = ${encryptedColumn.to(secret)}`);
  }

  /**
   * Removes the endpoint, its secret and its delivery history; false when the organization has no
   * such endpoint. Attempts have no foreign key to their delivery (see the webhooks migration),
   * so they are removed here, in a statement after the deliveries' own: an attempt recorded
   * before the deliveries were deleted is visible to it, and none can be recorded after
   * (recording updates the delivery row, which is gone). Its queue rows are deleted first: the
   * dispatcher ends a delivery by deleting its queue row, then updating the delivery, and rows
   * locked in that order on both sides never wait on each other in a cycle.
   */
  async remove(organizationId: OrgId, id: string): Promise<boolean> {
    return inTransaction(this.ds, async (em) => {
      const found = await query(
        em,
        sql`SELECT id FROM webhook_endpoints
        WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid
        FOR UPDATE`,
      );
      if (!found.length) return false;
      await query(
        em,
        sql`DELETE FROM webhook_delivery_queue
        WHERE webhook_endpoint_id = (SELECT id FROM webhook_endpoints
                                      WHERE organization_id = ${organizationId}::uuid
                                        AND id = ${id}::uuid)`,
      );
      const gone = await query<{ id: string }>(
        em,
        sql`DELETE FROM webhook_deliveries
        WHERE organization_id = ${organizationId}::uuid AND webhook_endpoint_id = ${id}::uuid
        RETURNING id`,
      );
      if (gone.length)
        await query(
          em,
          sql`DELETE FROM webhook_attempts
          WHERE organization_id = ${organizationId}::uuid
            AND webhook_delivery_id = ANY(${gone.map((g) => g.id)}::uuid[])`,
        );
      await query(
        em,
        sql`DELETE FROM webhook_endpoints
        WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid`,
      );
      return true;
    });
  }

  private async updateColumns(organizationId: OrgId, id: string, set: Sql): Promise<void> {
    await query(
      this.ds,
      sql`UPDATE webhook_endpoints SET ${set}, updated_at = now()
      WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid`,
    );
  }
}
