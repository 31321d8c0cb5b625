// All SQL of API keys.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull } from 'typeorm';
import { PageRequest, pageOffset } from '../common/pagination';
import { query, sql } from '../database/sql';
import { ApiKey } from './api-key.entity';

/** What a request's authentication needs of a key, read by its hash. */
export interface KeyRecord {
  id: string;
  organizationId: string;
  scopes: string[];
  rateLimitPerMinute: number;
  rateLimitPerDay: number | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/**
 * Every method takes the organization id first, except the two lookups made before an
 * organization is known: by the presented key's hash, and the operator's revoke by id.
 */
@Injectable()
export class ApiKeyRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async insert(organizationId: string, fields: Partial<ApiKey>): Promise<string> {
    const saved = await this.ds.manager.save(
      this.ds.manager.create(ApiKey, { ...fields, organizationId }),
    );
    return saved.id;
  }

  list(organizationId: string, page: PageRequest): Promise<[ApiKey[], number]> {
    return this.ds.manager.findAndCount(ApiKey, {
      where: { organizationId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: pageOffset(page),
      take: page.limit,
    });
  }

  find(organizationId: string, id: string): Promise<ApiKey | null> {
    return this.ds.manager.findOneBy(ApiKey, { organizationId, id });
  }

  async update(organizationId: string, id: string, patch: Partial<ApiKey>): Promise<void> {
    await this.ds.manager.update(ApiKey, { organizationId, id }, patch);
  }

  /** Revokes the key unless it is revoked already (the first revocation time stays). */
  async revoke(organizationId: string, id: string, at: Date): Promise<void> {
    await this.ds.manager.update(
      ApiKey,
      { organizationId, id, revokedAt: IsNull() },
      { revokedAt: at },
    );
  }

  /** The organization of a key, for the operator's revoke by id; null when there is none. */
  async organizationOf(id: string): Promise<string | null> {
    const key = await this.ds.manager.findOneBy(ApiKey, { id });
    return key?.organizationId ?? null;
  }

  /** The key a presented value hashes to, whatever its organization (the key names it). */
  async findByHash(keyHash: string): Promise<KeyRecord | null> {
    const [row] = await query<KeyRecord>(
      this.ds,
      sql`SELECT id, organization_id AS "organizationId", scopes,
                 rate_limit_per_minute AS "rateLimitPerMinute",
                 rate_limit_per_day AS "rateLimitPerDay",
                 expires_at AS "expiresAt", revoked_at AS "revokedAt"
            FROM api_keys WHERE key_hash = ${keyHash}`,
    );
    return row ?? null;
  }

  /** Sets lastUsedAt to `at` unless it was set less than a minute before. */
  async touchLastUsed(organizationId: string, id: string, at: Date): Promise<void> {
    await query(
      this.ds,
      sql`UPDATE api_keys SET last_used_at = ${at}
           WHERE organization_id = ${organizationId} AND id = ${id}
             AND (last_used_at IS NULL OR last_used_at < ${at}::timestamptz - interval '1 minute')`,
    );
  }
}
