// All SQL on provider accounts. Every statement shows the organization id; the credentials column
// is read by one method only (`credentialsOf`) and encrypted before it reaches a statement.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { fieldCipher } from '../crypto/field-encryption';
import { empty, join, query, sql } from '../database/sql';
import type {
  ChannelProvider,
  ProviderAccountStatus,
  ProviderName,
} from './channel-provider.entity';
import type { ProviderChannel } from './provider-adapter';

interface AccountRow {
  id: string;
  organization_id: OrgId;
  channel: ProviderChannel;
  provider: ProviderName;
  name: string;
  settings: Record<string, unknown>;
  status: ProviderAccountStatus;
  consecutive_auth_failures: number;
  is_default: boolean;
  max_per_second: number;
  created_at: Date;
  updated_at: Date;
}

/** Every column but the credentials. */
const COLUMNS = sql`id, organization_id, channel, provider, name, settings, status,
  consecutive_auth_failures, is_default, max_per_second, created_at, updated_at`;

/** The record without its credentials (the property is absent, as with `select: false`). */
export type ProviderAccountRecord = Omit<ChannelProvider, 'credentials'>;

function toRecord(r: AccountRow): ProviderAccountRecord {
  return {
    id: r.id,
    organizationId: r.organization_id,
    channel: r.channel,
    provider: r.provider,
    name: r.name,
    settings: r.settings,
    status: r.status,
    consecutiveAuthFailures: r.consecutive_auth_failures,
    isDefault: r.is_default,
    maxPerSecond: r.max_per_second,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export interface NewProviderAccount {
  channel: ProviderChannel;
  provider: ProviderName;
  name: string;
  settings: Record<string, unknown>;
  /** The credential object; serialised and encrypted here. */
  credentials: Record<string, unknown>;
  isDefault: boolean;
  maxPerSecond: number;
}

export interface ProviderAccountChange {
  name?: string;
  settings?: Record<string, unknown>;
  credentials?: Record<string, unknown>;
  status?: 'active' | 'disabled';
  isDefault?: true;
  maxPerSecond?: number;
}

type Db = DataSource | EntityManager;

@Injectable()
export class ChannelProviderRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Serialises the changes of one organization's defaults of a channel until the transaction ends. */
  async lockChannel(organizationId: OrgId, channel: ProviderChannel, em: EntityManager) {
    await query(
      em,
      sql`SELECT pg_advisory_xact_lock(
            hashtextextended(${`channel_providers:${organizationId}:${channel}`}, 0))`,
    );
  }

  async hasDefault(organizationId: OrgId, channel: ProviderChannel, em: Db = this.ds) {
    const rows = await query<{ one: number }>(
      em,
      sql`SELECT 1 AS one FROM channel_providers
           WHERE organization_id = ${organizationId} AND channel = ${channel} AND is_default`,
    );
    return rows.length > 0;
  }

  /** Clears the channel's default (before another account takes it, in the same transaction). */
  async clearDefault(organizationId: OrgId, channel: ProviderChannel, em: EntityManager) {
    await query(
      em,
      sql`UPDATE channel_providers SET is_default = false
           WHERE organization_id = ${organizationId} AND channel = ${channel} AND is_default`,
    );
  }

  async insert(
    organizationId: OrgId,
    a: NewProviderAccount,
    now: Date,
    em: Db = this.ds,
  ): Promise<ProviderAccountRecord> {
    const [row] = await query<AccountRow>(
      em,
      sql`INSERT INTO channel_providers (organization_id, channel, provider, name, settings,
            credentials, is_default, max_per_second, created_at, updated_at)
          VALUES (${organizationId}, ${a.channel}, ${a.provider}, ${a.name},
            ${JSON.stringify(a.settings)}::jsonb, ${fieldCipher().encrypt(JSON.stringify(a.credentials))},
            ${a.isDefault}, ${a.maxPerSecond}, ${now}, ${now})
          RETURNING ${COLUMNS}`,
    );
    return toRecord(row);
  }

  async list(
    organizationId: OrgId,
    filter: { channel?: ProviderChannel },
    page: { offset: number; limit: number },
  ): Promise<{ items: ProviderAccountRecord[]; total: number }> {
    const channel = filter.channel ? sql`AND channel = ${filter.channel}` : empty;
    const [rows, [{ n }]] = await Promise.all([
      query<AccountRow>(
        this.ds,
        sql`SELECT ${COLUMNS} FROM channel_providers
             WHERE organization_id = ${organizationId} ${channel}
             ORDER BY created_at DESC, id DESC OFFSET ${page.offset} LIMIT ${page.limit}`,
      ),
      query<{ n: number }>(
        this.ds,
        sql`SELECT count(*)::int AS n FROM channel_providers
             WHERE organization_id = ${organizationId} ${channel}`,
      ),
    ]);
    return { items: rows.map(toRecord), total: n };
  }

  async get(organizationId: OrgId, id: string, em: Db = this.ds) {
    const rows = await query<AccountRow>(
      em,
      sql`SELECT ${COLUMNS} FROM channel_providers
           WHERE organization_id = ${organizationId} AND id = ${id}`,
    );
    return rows.length ? toRecord(rows[0]) : null;
  }

  /**
   * The organization of the account a provider callback names (§17): the callback's URL carries
   * the account id, unguessable, and nothing of the organization; the provider's signature under
   * that account's credentials is what the callback is then trusted by.
   */
  async organizationOf(id: string): Promise<OrgId | null> {
    const rows = await query<{ organization_id: OrgId }>(
      this.ds,
      sql`SELECT organization_id FROM channel_providers WHERE id = ${id}::uuid`,
    );
    return rows[0]?.organization_id ?? null;
  }

  /** The channel's default account, or null. */
  async defaultOf(organizationId: OrgId, channel: ProviderChannel) {
    const rows = await query<AccountRow>(
      this.ds,
      sql`SELECT ${COLUMNS} FROM channel_providers
           WHERE organization_id = ${organizationId} AND channel = ${channel} AND is_default`,
    );
    return rows.length ? toRecord(rows[0]) : null;
  }

  /** The channel's accounts that may send (not disabled): the default first, then the oldest. */
  async sendableOf(organizationId: OrgId, channel: ProviderChannel) {
    const rows = await query<AccountRow>(
      this.ds,
      sql`SELECT ${COLUMNS} FROM channel_providers
           WHERE organization_id = ${organizationId} AND channel = ${channel}
             AND status <> 'disabled'
           ORDER BY is_default DESC, created_at, id`,
    );
    return rows.map(toRecord);
  }

  /** The decrypted credential object of one account (to send), or null when it is gone. */
  async credentialsOf(
    organizationId: OrgId,
    id: string,
    em: EntityManager | DataSource = this.ds,
  ): Promise<Record<string, unknown> | null> {
    const rows = await query<{ credentials: string }>(
      em,
      sql`SELECT credentials FROM channel_providers
           WHERE organization_id = ${organizationId} AND id = ${id}`,
    );
    return rows.length ? JSON.parse(fieldCipher().decrypt(rows[0].credentials)) : null;
  }

  async update(
    organizationId: OrgId,
    id: string,
    c: ProviderAccountChange,
    now: Date,
    em: Db = this.ds,
  ): Promise<ProviderAccountRecord | null> {
    const sets = [sql`updated_at = ${now}`];
    if (c.name !== undefined) sets.push(sql`name = ${c.name}`);
    if (c.settings !== undefined) sets.push(sql`settings = ${JSON.stringify(c.settings)}::jsonb`);
    if (c.credentials !== undefined) {
      // New credentials: the count of refusals of the old ones no longer says anything.
      sets.push(
        sql`credentials = ${fieldCipher().encrypt(JSON.stringify(c.credentials))}`,
        sql`consecutive_auth_failures = 0`,
        sql`status = CASE WHEN status = 'failing' THEN 'active' ELSE status END`,
      );
    }
    if (c.status !== undefined) {
      sets.push(sql`status = ${c.status}`, sql`consecutive_auth_failures = 0`);
    }
    if (c.isDefault) sets.push(sql`is_default = true`);
    if (c.maxPerSecond !== undefined) sets.push(sql`max_per_second = ${c.maxPerSecond}`);
    const rows = await query<AccountRow>(
      em,
      sql`UPDATE channel_providers SET ${join(sets, ', ')}
           WHERE organization_id = ${organizationId} AND id = ${id}
          RETURNING ${COLUMNS}`,
    );
    return rows.length ? toRecord(rows[0]) : null;
  }

  /** Removes the account; answers what it was, or null when there was none. */
  async remove(organizationId: OrgId, id: string, em: Db = this.ds) {
    const rows = await query<AccountRow>(
      em,
      sql`DELETE FROM channel_providers WHERE organization_id = ${organizationId} AND id = ${id}
          RETURNING ${COLUMNS}`,
    );
    return rows.length ? toRecord(rows[0]) : null;
  }

  /** Makes the channel's oldest active account its default (after the default was removed). */
  async promoteOldest(organizationId: OrgId, channel: ProviderChannel, em: EntityManager) {
    await query(
      em,
      sql`UPDATE channel_providers SET is_default = true
           WHERE id = (SELECT id FROM channel_providers
                        WHERE organization_id = ${organizationId} AND channel = ${channel}
                        ORDER BY (status = 'active') DESC, created_at, id LIMIT 1)`,
    );
  }

  /**
   * One more refusal of the credentials: at `threshold` in a row an active account becomes
   * `failing`. Answers the record as it now is.
   */
  async recordAuthFailure(organizationId: OrgId, id: string, threshold: number, now: Date) {
    const rows = await query<AccountRow>(
      this.ds,
      sql`UPDATE channel_providers
             SET consecutive_auth_failures = consecutive_auth_failures + 1,
                 status = CASE WHEN status = 'active' AND consecutive_auth_failures + 1 >= ${threshold}
                               THEN 'failing' ELSE status END,
                 updated_at = ${now}
           WHERE organization_id = ${organizationId} AND id = ${id}
          RETURNING ${COLUMNS}`,
    );
    return rows.length ? toRecord(rows[0]) : null;
  }

  /**
   * The provider took the credentials: the count starts again and a failing account is active.
   * Writes only when that changes something (a send of a healthy account writes nothing).
   */
  async recordAuthSuccess(organizationId: OrgId, id: string, now: Date) {
    const rows = await query<AccountRow>(
      this.ds,
      sql`UPDATE channel_providers
             SET consecutive_auth_failures = 0,
                 status = CASE WHEN status = 'failing' THEN 'active' ELSE status END,
                 updated_at = ${now}
           WHERE organization_id = ${organizationId} AND id = ${id}
             AND (consecutive_auth_failures > 0 OR status = 'failing')
          RETURNING ${COLUMNS}`,
    );
    return rows.length ? toRecord(rows[0]) : null;
  }
}
