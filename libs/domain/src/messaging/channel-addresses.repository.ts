// Where a message beyond email goes when the send names a contact (§17): the contact's records of
// the channel, read with their consent status; and what the organization's records say of a raw
// address (a device token's platform, a chat's consent).
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CHANNEL_RECORDS, UNSENDABLE_RECORD_STATUSES } from '../channels/channel-message';
import type { PushPlatform } from '../contacts/contact-channels.entity';
import type { ProviderChannel } from '../channels/provider-adapter';
import type { OrgId } from '../common/org-id';
import { blindIndexCandidatesOf } from '../contacts/blind-index';
import { fieldCipher } from '../crypto/field-encryption';
import { query, raw, sql, Sql } from '../database/sql';

export interface ChannelAddress {
  address: string;
  status: string;
  isPrimary: boolean;
  platform?: PushPlatform;
}

interface Row {
  address: string;
  status: string;
  is_primary: boolean;
  platform: PushPlatform | null;
}

/** A channel's records as one column list: the address, its consent, and a push token's platform. */
function sourceOf(channel: ProviderChannel): Sql {
  const r = CHANNEL_RECORDS[channel];
  const platform = channel === 'push' ? 'platform' : 'NULL::text';
  // A Telegram record without a chat (its deep link never opened) has no address yet.
  const reachable = channel === 'telegram' ? 'WHERE chat_id IS NOT NULL' : '';
  return raw(
    `SELECT organization_id, contact_id, ${r.address} AS address, ${r.hash} AS hash, status,
            is_primary, ${platform} AS platform, created_at, id
       FROM ${r.table} ${reachable}`,
  );
}

@Injectable()
export class ChannelAddresses {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * The contact's record to send to: the primary one that may be sent to, else the oldest that
   * may, else (none may) the primary or oldest; null when it has none of the channel.
   */
  bestOf(
    orgId: OrgId,
    channel: ProviderChannel,
    contactId: string,
  ): Promise<ChannelAddress | null> {
    return this.first(
      orgId,
      channel,
      sql`contact_id = ${contactId}::uuid`,
      (refused) => sql`NOT ${refused} DESC, is_primary DESC, created_at, id`,
    );
  }

  /** The organization's record holding this address (one that refuses sending first), or null. */
  byAddress(
    orgId: OrgId,
    channel: ProviderChannel,
    address: string,
  ): Promise<ChannelAddress | null> {
    const hashes = blindIndexCandidatesOf(CHANNEL_RECORDS[channel].kind, address);
    return this.first(
      orgId,
      channel,
      sql`hash = ANY(${hashes}::text[])`,
      (refused) => sql`${refused} DESC`,
    );
  }

  /** The first of the organization's records of the channel that match, in the order given. */
  private async first(
    orgId: OrgId,
    channel: ProviderChannel,
    where: Sql,
    order: (refused: Sql) => Sql,
  ): Promise<ChannelAddress | null> {
    const refused = sql`(status = ANY(${[...UNSENDABLE_RECORD_STATUSES[channel]]}::text[]))`;
    const rows = await query<Row>(
      this.ds,
      sql`SELECT address, status, is_primary, platform FROM (${sourceOf(channel)}) r
           WHERE organization_id = ${orgId}::uuid AND ${where}
           ORDER BY ${order(refused)}
           LIMIT 1`,
    );
    return rows.length ? this.read(rows[0]) : null;
  }

  private read(row: Row): ChannelAddress {
    return {
      address: fieldCipher().decrypt(row.address),
      status: row.status,
      isPrimary: row.is_primary,
      platform: row.platform ?? undefined,
    };
  }
}
