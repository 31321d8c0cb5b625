// SQL of the six channel tables: single records through the entity manager, batches set-based.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, ObjectLiteral } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { query, raw, sql } from '../database/sql';
import {
  CHANNEL_INFO,
  ChannelRecordOf,
  ContactChannel,
  EmailStatus,
} from './contact-channels.entity';

/** A value ready to store: its ciphertext and blind index. */
export interface SealedValue {
  enc: string;
  hash: string;
}

/** A phone record of an import: the number sealed, its country, and a Telegram handle. */
export interface SealedPhone extends SealedValue {
  contactId: string;
  countryCode: string;
  /** Whether it is the first record of its channel among the batch's records of its contact. */
  first: boolean;
  /** Telegram only: the handle, encrypted. */
  usernameEnc?: string;
}

export type PhoneChannel = 'sms' | 'whatsapp' | 'telegram';

/** What a new phone record of each channel gets besides the number. */
const PHONE_DEFAULTS: Record<PhoneChannel, { columns: string; values: string }> = {
  sms: { columns: ', status', values: `, 'unverified'` },
  whatsapp: { columns: ', status, is_business_account', values: `, 'unverified', false` },
  telegram: { columns: ', status, username', values: `, 'active', u.username` },
};

export interface EmailRecordStatus {
  id: string;
  contact_id: string;
  status: EmailStatus;
}

@Injectable()
export class ContactChannelsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  private entities(em: EntityManager, channel: ContactChannel) {
    return em.getRepository<ObjectLiteral>(CHANNEL_INFO[channel].entity);
  }

  /** How many records of a channel the contact has. */
  count(orgId: OrgId, contactId: string, channel: ContactChannel, em: EntityManager) {
    return this.entities(em, channel).countBy({ organizationId: orgId, contactId });
  }

  /**
   * Inserts one record (its values in the clear; encrypted and indexed on the way) stamped with
   * clock_timestamp(), not the transaction's now(): records added in one transaction keep their
   * order (they are listed by createdAt). Answers it as stored.
   */
  async insert<C extends ContactChannel>(
    orgId: OrgId,
    channel: C,
    values: ObjectLiteral,
    em: EntityManager,
  ): Promise<ChannelRecordOf[C]> {
    const repo = this.entities(em, channel);
    const { identifiers } = await repo.insert({
      ...values,
      organizationId: orgId,
      createdAt: () => 'clock_timestamp()',
      updatedAt: () => 'clock_timestamp()',
    });
    return (await repo.findOneByOrFail({
      organizationId: orgId,
      id: identifiers[0].id as string,
    })) as ChannelRecordOf[C];
  }

  /** One record of the contact; null when it has none with that id. */
  async find<C extends ContactChannel>(
    orgId: OrgId,
    contactId: string,
    channel: C,
    id: string,
  ): Promise<ChannelRecordOf[C] | null> {
    return (await this.entities(this.ds.manager, channel).findOne({
      where: { id, contactId, organizationId: orgId },
    })) as ChannelRecordOf[C] | null;
  }

  /** One record of the contact, locked for update; null when it has none with that id. */
  async findForUpdate<C extends ContactChannel>(
    orgId: OrgId,
    contactId: string,
    channel: C,
    id: string,
    em: EntityManager,
  ): Promise<ChannelRecordOf[C] | null> {
    return (await this.entities(em, channel).findOne({
      where: { id, contactId, organizationId: orgId },
      lock: { mode: 'pessimistic_write' },
    })) as ChannelRecordOf[C] | null;
  }

  /** Changes fields of one record (never its encrypted value); answers it as stored. */
  async update<C extends ContactChannel>(
    orgId: OrgId,
    channel: C,
    id: string,
    changes: ObjectLiteral,
    em: EntityManager,
  ): Promise<ChannelRecordOf[C]> {
    const repo = this.entities(em, channel);
    if (Object.keys(changes).length) await repo.update({ id, organizationId: orgId }, changes);
    return (await repo.findOneByOrFail({ id, organizationId: orgId })) as ChannelRecordOf[C];
  }

  /** Deletes one record of the contact; answers whether it existed. */
  async delete(
    orgId: OrgId,
    contactId: string,
    channel: ContactChannel,
    id: string,
    em: EntityManager,
  ): Promise<boolean> {
    const res = await this.entities(em, channel).delete({ id, contactId, organizationId: orgId });
    return Boolean(res.affected);
  }

  /** New contacts' email records (primary, unverified), one per contact. */
  async insertEmails(
    orgId: OrgId,
    rows: (SealedValue & { contactId: string })[],
    em: EntityManager,
  ): Promise<void> {
    if (!rows.length) return;
    await query(
      em,
      sql`INSERT INTO contact_emails (organization_id, contact_id, email, email_hash, status, is_primary)
          SELECT ${orgId}::uuid, u.c, u.e, u.h, 'unverified', true
            FROM unnest(${rows.map((r) => r.contactId)}::uuid[], ${rows.map((r) => r.enc)}::text[],
                        ${rows.map((r) => r.hash)}::text[]) AS u(c, e, h)`,
    );
  }

  /**
   * Phone records of one channel. For new contacts (`existing` false) each contact's first record
   * is primary. For existing ones a number the contact already has is not added again, and an
   * added record is primary only when the contact had none on that channel.
   */
  async insertPhones(
    orgId: OrgId,
    channel: PhoneChannel,
    rows: SealedPhone[],
    existing: boolean,
    em: EntityManager,
  ): Promise<void> {
    if (!rows.length) return;
    const table = raw(CHANNEL_INFO[channel].table);
    const extra = PHONE_DEFAULTS[channel];
    await query(
      em,
      sql`INSERT INTO ${table} (organization_id, contact_id, phone_number, phone_hash, country_code,
                               is_primary${raw(extra.columns)})
          SELECT ${orgId}::uuid, u.c, u.p, u.h, u.cc,
                 ${existing ? sql`u.first AND NOT EXISTS (SELECT 1 FROM ${table} x WHERE x.organization_id = ${orgId}::uuid AND x.contact_id = u.c)` : raw('u.first')}
                 ${raw(extra.values)}
            FROM unnest(${rows.map((r) => r.contactId)}::uuid[], ${rows.map((r) => r.enc)}::text[],
                        ${rows.map((r) => r.hash)}::text[], ${rows.map((r) => r.countryCode)}::text[],
                        ${rows.map((r) => r.first)}::boolean[],
                        ${rows.map((r) => r.usernameEnc ?? null)}::text[])
                 AS u(c, p, h, cc, first, username)
          ${existing ? sql`WHERE NOT EXISTS (SELECT 1 FROM ${table} x WHERE x.organization_id = ${orgId}::uuid AND x.contact_id = u.c AND x.phone_hash = u.h)` : raw('')}`,
    );
  }

  /** The organization's email records with one of these blind indexes. */
  emailsByHash(
    orgId: OrgId,
    hashes: string[],
  ): Promise<(EmailRecordStatus & { email_hash: string })[]> {
    return query(
      this.ds,
      sql`SELECT id, contact_id, status, email_hash FROM contact_emails
           WHERE organization_id = ${orgId}::uuid AND email_hash = ANY(${hashes}::text[])`,
    );
  }

  /** The addresses of the contact's email records, encrypted as stored. */
  async emailsOf(orgId: OrgId, contactId: string): Promise<string[]> {
    const rows = await query<{ email: string }>(
      this.ds,
      sql`SELECT email FROM contact_emails
           WHERE organization_id = ${orgId}::uuid AND contact_id = ${contactId}::uuid`,
    );
    return rows.map((r) => r.email);
  }

  /**
   * A bounce on the email records with one of these blind indexes, in `em`'s transaction:
   * bounceCount + 1, lastBouncedAt, and status `bounced` when `hard`, unless the status is one of
   * `keep`.
   */
  async recordBounces(
    em: EntityManager,
    orgId: OrgId,
    hashes: string[],
    hard: boolean,
    keep: string[],
    at: Date,
  ): Promise<void> {
    await query(
      em,
      sql`UPDATE contact_emails
             SET bounce_count = bounce_count + 1,
                 last_bounced_at = ${at}::timestamptz,
                 status = CASE WHEN ${hard}::boolean AND NOT (status = ANY(${keep}::text[]))
                               THEN 'bounced' ELSE status END,
                 updated_at = now()
           WHERE organization_id = ${orgId}::uuid AND email_hash = ANY(${hashes}::text[])`,
    );
  }

  /**
   * A complaint: complaintCount + 1, lastComplainedAt, status `complained` unless in `keep`; in
   * `em`'s transaction when given.
   */
  recordComplaint(
    orgId: OrgId,
    hashes: string[],
    at: Date,
    keep: string[],
    em?: EntityManager,
  ): Promise<EmailRecordStatus[]> {
    return query(
      em ?? this.ds,
      sql`UPDATE contact_emails
             SET complaint_count = complaint_count + 1,
                 last_complained_at = GREATEST(coalesce(last_complained_at, ${at}::timestamptz), ${at}::timestamptz),
                 status = CASE WHEN status = ANY(${keep}::text[]) THEN status ELSE 'complained' END,
                 updated_at = now()
           WHERE organization_id = ${orgId}::uuid AND email_hash = ANY(${hashes}::text[])
          RETURNING id, contact_id, status`,
    );
  }
}
