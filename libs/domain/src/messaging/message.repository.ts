// The message log's writes: new messages with their recipients, delivery leases. The record of
// attempts and status moves is message-attempts.repository.ts's; the sweep and the retention purge
// are message-sweep.repository.ts's.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { DataSource, EntityManager } from 'typeorm';
import {
  addressIndexKind,
  CHANNEL_RECORDS,
  ChannelContent,
  UNSENDABLE_RECORD_STATUSES,
} from '../channels/channel-message';
import { PROVIDER_CHANNELS, ProviderChannel } from '../channels/provider-adapter';
import type { OrgId } from '../common/org-id';
import { blindIndexOf } from '../contacts/blind-index';
import { FieldCipher, fieldCipher } from '../crypto/field-encryption';
import { join, query, raw, sql } from '../database/sql';
import type { ClaimedMessage, NewMessage, RecipientState, RecipientStatus } from './message.types';
import type { MessageContent } from './outgoing-message';

interface ClaimedRow {
  id: string;
  organization_id: string;
  job_id: string;
  message_id: string;
  channel: 'email' | ProviderChannel;
  provider_id: string | null;
  sender_address: string;
  campaign_id: string | null;
  contact_id: string | null;
  tags: string[];
  track_opens: boolean;
  track_clicks: boolean;
  created_at: Date;
  content: string;
  raw: Buffer | null;
  recipients: {
    idx: number;
    kind: RecipientState['kind'];
    address: string;
    status: RecipientStatus;
    retry_count: number;
    next_attempt_at: string | null;
    first_attempt_at: string | null;
    provider_message_id: string | null;
    contact_status: string | null;
  }[];
}

/** A lease asked for: the message, the time of the claim, and the end of the lease. */
export interface LeaseRequest {
  id: string;
  now: Date;
  until: Date;
}

/** Stored content (encrypted, base64) from which a claimed message is read a step per turn. */
const LARGE_CONTENT_CHARS = 1024 * 1024;

/**
 * The consent of a channel message's recipient at claim time: the status of the organization's
 * record holding the address, one that refuses sending first (SQL `WHEN` branches of the claim).
 */
const RECORD_STATUS_CASES = PROVIDER_CHANNELS.map((channel) => {
  const r = CHANNEL_RECORDS[channel];
  const refused = UNSENDABLE_RECORD_STATUSES[channel].map((st) => `'${st}'`).join(',');
  return `WHEN '${channel}' THEN (
            SELECT x.status FROM ${r.table} x
             WHERE x.organization_id = r.organization_id AND x.${r.hash} = r.address_hash
             ORDER BY x.status IN (${refused}) DESC LIMIT 1)`;
}).join('\n');
@Injectable()
export class MessageRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Which of a message's references is not a row of the organization: 'campaign', 'contact', or
   * null when both are (or are absent). One round trip.
   */
  async foreignReference(
    orgId: OrgId,
    refs: { campaignId: string | null; contactId: string | null },
  ): Promise<'campaign' | 'contact' | null> {
    if (!refs.campaignId && !refs.contactId) return null;
    const [row] = await query<{ campaign: boolean; contact: boolean }>(
      this.ds,
      sql`SELECT (${refs.campaignId}::uuid IS NULL OR EXISTS (
                    SELECT 1 FROM campaigns
                     WHERE organization_id = ${orgId}::uuid
                       AND id = ${refs.campaignId}::uuid)) AS campaign,
                 (${refs.contactId}::uuid IS NULL OR EXISTS (
                    SELECT 1 FROM contacts
                     WHERE organization_id = ${orgId}::uuid
                       AND id = ${refs.contactId}::uuid)) AS contact`,
    );
    if (!row.campaign) return 'campaign';
    if (!row.contact) return 'contact';
    return null;
  }

  /**
   * The organization's new messages and their recipients, in one statement; answers their row
   * ids in order. Content and addresses are encrypted; a raw message (SMTP) goes to the bytea
   * column, encrypted as bytes.
   */
  async insert(em: EntityManager, orgId: OrgId, messages: NewMessage[]): Promise<string[]> {
    const cipher = fieldCipher();
    const ids = messages.map(() => randomUUID());
    const rows = messages.map((m, i) => {
      const raw = m.channel === 'email' && m.raw ? cipher.encryptBytes(m.raw) : null;
      const providerId = m.channel === 'email' ? null : m.providerId;
      return sql`(${ids[i]}::uuid, ${orgId}::uuid, ${m.jobId}, ${m.messageId},
        ${m.source}, ${m.channel}, ${providerId}::uuid, ${m.senderAddress}, ${m.campaignId}::uuid,
        ${m.contactId}::uuid, ${m.tags}::text[], ${m.trackOpens}, ${m.trackClicks},
        ${cipher.encrypt(JSON.stringify(m.content))}, ${raw}::bytea,
        'queued', ${m.recipients.length}, ${m.createdAt}::timestamptz, ${m.createdAt}::timestamptz,
        ${m.createdAt}::timestamptz)`;
    });
    // Each address is indexed as its channel's contact records are, so the claim finds its record.
    const recipients = messages.flatMap((m, i) =>
      m.recipients.map((r, idx) => ({
        id: ids[i],
        idx,
        r,
        hash: blindIndexOf(addressIndexKind(m.channel), r.email),
      })),
    );
    await query(
      em,
      sql`WITH message AS (
            INSERT INTO messages (id, organization_id, job_id, message_id, source, channel,
              provider_id, sender_address, campaign_id, contact_id, tags, track_opens,
              track_clicks, content, raw, status,
              recipient_count, next_attempt_at, created_at, updated_at)
            VALUES ${join(rows)}
          )
          INSERT INTO message_recipients
            (message_id, idx, organization_id, kind, address, address_hash)
          SELECT t.message_id, t.idx, ${orgId}::uuid, t.kind, t.address, t.address_hash
            FROM unnest(
              ${recipients.map((x) => x.id)}::uuid[],
              ${recipients.map((x) => x.idx)}::smallint[],
              ${recipients.map((x) => x.r.kind)}::text[],
              ${recipients.map((x) => cipher.encrypt(x.r.email))}::text[],
              ${recipients.map((x) => x.hash)}::text[])
              AS t(message_id, idx, kind, address, address_hash)`,
      // The text depends on the number of messages only (a row of values each).
      { prepare: `messages_insert_${messages.length}` },
    );
    return ids;
  }

  /**
   * Takes the delivery lease on each requested message of the organization that is due, so no
   * other worker delivers it at the same time, in one statement. Answers per request the message
   * with its recipients' states and ContactEmail statuses; null when it is not due, already
   * leased, finished or gone (or asked for twice: the first request holds the lease); an Error
   * when it cannot be read (content under a key this worker lacks), for that request only.
   */
  async claim(orgId: OrgId, requests: LeaseRequest[]): Promise<(ClaimedMessage | null | Error)[]> {
    // The claimed rows are the organization's own messages, so their recipients are looked up by the primary
    // key alone: a second condition on organization_id would let the planner, without statistics
    // yet, AND in a scan of the organization's whole recipient index for every message.
    const rows = await query<ClaimedRow>(
      this.ds,
      sql`WITH req AS (
            SELECT * FROM unnest(
              ${requests.map((r) => r.id)}::uuid[],
              ${requests.map((r) => r.now)}::timestamptz[],
              ${requests.map((r) => r.until)}::timestamptz[]) AS t(id, now, until)
          ),
          claimed AS (
            UPDATE messages m SET lease_until = req.until, updated_at = req.now
              FROM req
             WHERE m.organization_id = ${orgId}::uuid AND m.id = req.id
               AND m.next_attempt_at IS NOT NULL AND m.next_attempt_at <= req.now
               AND (m.lease_until IS NULL OR m.lease_until < req.now)
             RETURNING m.id, m.organization_id, m.job_id, m.message_id, m.channel, m.provider_id,
                       m.sender_address, m.campaign_id, m.contact_id, m.tags, m.track_opens,
                       m.track_clicks, m.created_at, m.content, m.raw)
          SELECT c.*,
                 (SELECT json_agg(json_build_object('idx', r.idx, 'kind', r.kind,
                           'address', r.address, 'status', r.status, 'retry_count', r.retry_count,
                           'next_attempt_at', r.next_attempt_at,
                           'first_attempt_at', r.first_attempt_at,
                           'provider_message_id', r.provider_message_id,
                           'contact_status', CASE c.channel
                             WHEN 'email' THEN (
                               SELECT ce.status FROM contact_emails ce
                                WHERE ce.organization_id = r.organization_id
                                  AND ce.email_hash = r.address_hash)
                             ${raw(RECORD_STATUS_CASES)}
                           END)
                           ORDER BY r.idx)
                    FROM message_recipients r
                   WHERE r.message_id = c.id) AS recipients
            FROM claimed c`,
      { prepare: 'messages_claim' },
    );
    const cipher = fieldCipher();
    const byId = new Map(rows.map((row) => [row.id, row]));
    const out: (ClaimedMessage | null | Error)[] = [];
    for (const request of requests) {
      const row = byId.get(request.id);
      if (!row) {
        out.push(null);
        continue;
      }
      byId.delete(request.id);
      try {
        out.push(this.readClaimed(orgId, row, await this.contentOf(row, cipher), cipher));
      } catch (err) {
        out.push(err instanceof Error ? err : new Error(String(err)));
      }
    }
    return out;
  }

  /**
   * A claimed message's content. Decrypting and parsing megabytes takes tens of milliseconds, so
   * large content is read a step per event-loop turn (I/O in between), never in one turn with
   * the statement's whole batch.
   */
  private async contentOf(
    row: ClaimedRow,
    cipher: FieldCipher,
  ): Promise<MessageContent | ChannelContent> {
    if (row.content.length <= LARGE_CONTENT_CHARS) {
      return JSON.parse(cipher.decrypt(row.content)) as MessageContent | ChannelContent;
    }
    const json = await cipher.decryptInTurns(row.content);
    await nextTurn();
    return JSON.parse(json) as MessageContent;
  }

  private readClaimed(
    orgId: OrgId,
    row: ClaimedRow,
    content: MessageContent | ChannelContent,
    cipher: FieldCipher,
  ): ClaimedMessage {
    const date = (v: string | null) => (v === null ? null : new Date(v));
    const common = {
      id: row.id,
      // The claim's own organization: its statement matched no other.
      organizationId: orgId,
      jobId: row.job_id,
      messageId: row.message_id,
      senderAddress: row.sender_address,
      campaignId: row.campaign_id,
      contactId: row.contact_id,
      tags: row.tags,
      trackOpens: row.track_opens,
      trackClicks: row.track_clicks,
      createdAt: row.created_at,
      recipients: (row.recipients ?? []).map((r) => ({
        idx: r.idx,
        kind: r.kind,
        email: cipher.decrypt(r.address),
        status: r.status,
        retryCount: r.retry_count,
        nextAttemptAt: date(r.next_attempt_at),
        firstAttemptAt: date(r.first_attempt_at),
        providerMessageId: r.provider_message_id,
        contactStatus: r.contact_status,
      })),
    };
    if (row.channel !== 'email') {
      return {
        ...common,
        channel: row.channel,
        providerId: row.provider_id,
        content: content as ChannelContent,
      };
    }
    return {
      ...common,
      channel: 'email',
      content: content as MessageContent,
      raw: row.raw ? cipher.decryptBytes(row.raw) : undefined,
    };
  }

  /** Gives the lease back without a result (the run failed before anything was recorded). */
  async releaseLease(orgId: OrgId, id: string): Promise<void> {
    await query(
      this.ds,
      sql`UPDATE messages SET lease_until = NULL
           WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid`,
    );
  }
}
