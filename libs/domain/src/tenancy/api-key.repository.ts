// All SQL of API keys.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull } from 'typeorm';
import { asOrgId, OrgId } from '../common/org-id';
import { PageRequest, pageOffset } from '../common/pagination';
import { query, sql } from '../database/sql';
import { ApiKey } from './api-key.entity';

/** What a request's authentication needs of a key, read by its hash. */
export interface KeyRecord {
  id: string;
  organizationId: OrgId;
  scopes: string[];
  rateLimitPerMinute: number;
  rateLimitPerDay: number | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/**
 * Every method takes the organization id first, except the two lookups made before an
 * organization is known: by the presented key's hash, and the operator's revoke by id (both
 * exempt in the org-id-first lint rule's configuration).
 */
@Injectable()
export class ApiKeyRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async insert(orgId: OrgId, fields: Partial<ApiKey>): Promise<string> {
    const saved = await this.ds.manager.save(
      this.ds.manager.create(ApiKey, { ...fields, organizationId: orgId }),
    );
    return saved.id;
  }

  list(orgId: OrgId, page: PageRequest): Promise<[ApiKey[], number]> {
    return this.ds.manager.findAndCount(ApiKey, {
      where: { organizationId: orgId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: pageOffset(page),
      take: page.limit,
    });
  }

  find(orgId: OrgId, id: string): Promise<ApiKey | null> {
    return this.ds.manager.findOneBy(ApiKey, { organizationId: orgId, id });
  }

  async update(orgId: OrgId, id: string, patch: Partial<ApiKey>): Promise<void> {
    await this.ds.manager.update(ApiKey, { organizationId: orgId, id }, patch);
  }

  /** Revokes the key unless it is revoked already (the first revocation time stays). */
  async revoke(orgId: OrgId, id: string, at: Date): Promise<void> {
    await this.ds.manager.update(
      ApiKey,
      { organizationId: orgId, id, revokedAt: IsNull() },
      { revokedAt: at },
    );
  }

  /** The organization of a key, for the operator's revoke by id; null when there is none. */
  async organizationOf(id: string): Promise<OrgId | null> {
    const key = await this.ds.manager.findOneBy(ApiKey, { id });
    return key?.organizationId ?? null;
  }

  /** The key a presented value hashes to, whatever its organization (the key names it). */
  async findByHash(keyHash: string): Promise<KeyRecord | null> {
    const [row] = await query<Omit<KeyRecord, 'organizationId'> & { organizationId: OrgId }>(
      this.ds,
      sql`SELECT id, organization_id AS "organizationId", scopes,
                 rate_limit_per_minute AS "rateLimitPerMinute",
                 rate_limit_per_day AS "rateLimitPerDay",
                 expires_at AS "expiresAt", revoked_at AS "revokedAt"
            FROM api_keys WHERE key_hash = ${keyHash}`,
    );
    return row ? { ...row, organizationId: asOrgId(row.organizationId) } : null;
  }

  /** Sets lastUsedAt to `at` unless it was set less than a minute before. */
  async touchLastUsed(orgId: OrgId, id: string, at: Date): Promise<void> {
    await query(
      this.ds,
      sql`UPDATE api_keys SET last_used_at = ${at}
           WHERE organization_id = ${orgId} AND id = ${id}
             AND (last_used_at IS NULL OR last_used_at < ${at}::timestamptz - interval '1 minute')`,
    );
  }
}
