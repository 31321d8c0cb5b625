// All SQL on one organization's sending domains, every statement showing its id, and the lookup
// of a return host (which names no organization). The worker's claim of due checks spans
// organizations: sending-domain.sweeper.ts.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { asOrgId, OrgId } from '../common/org-id';
import { fieldCipher } from '../crypto/field-encryption';
import { query, sql } from '../database/sql';
import type { RecordChecks, SendingDomain, SendingDomainStatus } from './sending-domain.entity';

export interface DomainRow {
  id: string;
  organization_id: string;
  name: string;
  status: SendingDomainStatus;
  dkim_selector: string;
  dkim_public_key: string;
  record_checks: RecordChecks;
  verified_at: Date | null;
  last_checked_at: Date | null;
  next_check_at: Date | null;
  check_until: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** Every column but the private key. */
export const COLUMNS = sql`id, organization_id, name, status, dkim_selector, dkim_public_key,
  record_checks, verified_at, last_checked_at, next_check_at, check_until, created_at, updated_at`;

export function toDomain(r: DomainRow): SendingDomain {
  return {
    id: r.id,
    organizationId: asOrgId(r.organization_id),
    name: r.name,
    status: r.status,
    dkimSelector: r.dkim_selector,
    dkimPublicKey: r.dkim_public_key,
    recordChecks: r.record_checks,
    verifiedAt: r.verified_at,
    lastCheckedAt: r.last_checked_at,
    nextCheckAt: r.next_check_at,
    checkUntil: r.check_until,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  } as SendingDomain;
}

export interface NewSendingDomain {
  name: string;
  dkimSelector: string;
  dkimPublicKey: string;
  /** PKCS#8 PEM; encrypted here, before it reaches the statement. */
  dkimPrivateKey: string;
  nextCheckAt: Date;
  checkUntil: Date;
}

/** What a check decided, as stored. */
export interface CheckRecord {
  status: SendingDomainStatus;
  recordChecks: RecordChecks;
  verifiedAt: Date | null;
  nextCheckAt: Date | null;
  checkUntil: Date | null;
}

/** A verified domain as the signer uses it. */
export interface VerifiedDomainRow {
  id: string;
  name: string;
  selector: string;
  /** Encrypted PKCS#8 PEM. */
  privateKey: string;
  returnPathVerified: boolean;
}

@Injectable()
export class SendingDomainRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Serialises the organization's creates until the transaction ends, so that a count read
   * under it stays true until the insert (the limit of §16 holds under concurrent creates).
   */
  async lockCreations(organizationId: OrgId, em: EntityManager): Promise<void> {
    await query(
      em,
      sql`SELECT pg_advisory_xact_lock(hashtextextended(${`sending_domains:${organizationId}`}, 0))`,
    );
  }

  async count(organizationId: OrgId, em: DataSource | EntityManager = this.ds): Promise<number> {
    const [row] = await query<{ n: number }>(
      em,
      sql`SELECT count(*)::int AS n FROM sending_domains WHERE organization_id = ${organizationId}`,
    );
    return row.n;
  }

  /** The new domain, or null when the organization already has one of that name. */
  async insert(
    organizationId: OrgId,
    d: NewSendingDomain,
    now: Date,
    em: DataSource | EntityManager = this.ds,
  ): Promise<SendingDomain | null> {
    const rows = await query<DomainRow>(
      em,
      sql`INSERT INTO sending_domains (organization_id, name, dkim_selector, dkim_public_key,
            dkim_private_key, next_check_at, check_until, created_at, updated_at)
          VALUES (${organizationId}, ${d.name}, ${d.dkimSelector}, ${d.dkimPublicKey},
            ${fieldCipher().encrypt(d.dkimPrivateKey)}, ${d.nextCheckAt}, ${d.checkUntil}, ${now}, ${now})
          ON CONFLICT (organization_id, name) DO NOTHING
          RETURNING ${COLUMNS}`,
    );
    return rows.length ? toDomain(rows[0]) : null;
  }

  async list(
    organizationId: OrgId,
    page: { offset: number; limit: number },
  ): Promise<{ items: SendingDomain[]; total: number }> {
    const [rows, [{ n }]] = await Promise.all([
      query<DomainRow>(
        this.ds,
        sql`SELECT ${COLUMNS} FROM sending_domains WHERE organization_id = ${organizationId}
            ORDER BY created_at DESC, id DESC OFFSET ${page.offset} LIMIT ${page.limit}`,
      ),
      query<{ n: number }>(
        this.ds,
        sql`SELECT count(*)::int AS n FROM sending_domains WHERE organization_id = ${organizationId}`,
      ),
    ]);
    return { items: rows.map(toDomain), total: n };
  }

  async get(organizationId: OrgId, id: string): Promise<SendingDomain | null> {
    const rows = await query<DomainRow>(
      this.ds,
      sql`SELECT ${COLUMNS} FROM sending_domains
          WHERE organization_id = ${organizationId} AND id = ${id}`,
    );
    return rows.length ? toDomain(rows[0]) : null;
  }

  async remove(organizationId: OrgId, id: string): Promise<boolean> {
    const rows = await query<{ id: string }>(
      this.ds,
      sql`DELETE FROM sending_domains WHERE organization_id = ${organizationId} AND id = ${id}
          RETURNING id`,
    );
    return rows.length > 0;
  }

  /** Another organization holds `name` verified. */
  async verifiedElsewhere(organizationId: OrgId, name: string): Promise<boolean> {
    const rows = await query<{ one: number }>(
      this.ds,
      sql`SELECT 1 AS one FROM sending_domains
          WHERE organization_id <> ${organizationId} AND name = ${name} AND status = 'verified'`,
    );
    return rows.length > 0;
  }

  /**
   * Whether `name` (`example.com` for the return host `bounces.example.com`) is a verified domain
   * of some organization whose return-path record is verified: a host the inbound port takes mail
   * for. A name is verified by one organization at most.
   */
  async isVerifiedReturnDomain(name: string): Promise<boolean> {
    const rows = await query<{ one: number }>(
      this.ds,
      sql`SELECT 1 AS one FROM sending_domains
           WHERE name = ${name} AND status = 'verified'
             AND record_checks #>> '{return-path,status}' = 'verified'`,
    );
    return rows.length > 0;
  }

  /**
   * Stores a check. `taken` when it would verify a name another organization verified meanwhile
   * (the unique index decides between two concurrent verifications); null when the domain is gone.
   */
  async recordCheck(
    organizationId: OrgId,
    id: string,
    c: CheckRecord,
    now: Date,
  ): Promise<SendingDomain | null | 'taken'> {
    try {
      const rows = await query<DomainRow>(
        this.ds,
        sql`UPDATE sending_domains
               SET status = ${c.status}, record_checks = ${JSON.stringify(c.recordChecks)}::jsonb,
                   verified_at = ${c.verifiedAt}, next_check_at = ${c.nextCheckAt},
                   check_until = ${c.checkUntil}, last_checked_at = ${now}, updated_at = ${now}
             WHERE organization_id = ${organizationId} AND id = ${id}
            RETURNING ${COLUMNS}`,
      );
      return rows.length ? toDomain(rows[0]) : null;
    } catch (err) {
      if ((err as { code?: string }).code === '23505') return 'taken';
      throw err;
    }
  }

  /** The organization's verified domains, with what signing needs. */
  async verifiedOf(organizationId: OrgId): Promise<VerifiedDomainRow[]> {
    return query<VerifiedDomainRow>(
      this.ds,
      sql`SELECT id, name, dkim_selector AS selector, dkim_private_key AS "privateKey",
                 coalesce(record_checks #>> '{return-path,status}' = 'verified', false)
                   AS "returnPathVerified"
            FROM sending_domains
           WHERE organization_id = ${organizationId} AND status = 'verified'`,
    );
  }
}
