// Where a message beyond email goes when the send names a contact (§17): the contact's records of
// the channel, read with their consent status; and what the organization's records say of a raw
// address (a device token's platform).
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { UNSENDABLE_RECORD_STATUSES } from '../channels/channel-message';
import type { PushPlatform } from '../contacts/contact-channels.entity';
import type { ProviderChannel } from '../channels/provider-adapter';
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

/** The records of the channels the send API serves so far, as one column list each. */
const SOURCES: Partial<
  Record<ProviderChannel, { from: Sql; hash: string; kind: 'phone' | 'token' }>
> = {
  sms: {
    from: sql`SELECT phone_number AS address, status, is_primary, NULL::text AS platform,
                       created_at, id FROM contact_sms`,
    hash: 'phone_hash',
    kind: 'phone',
  },
  push: {
    from: sql`SELECT device_token AS address, status, is_primary, platform, created_at, id
                  FROM contact_push`,
    hash: 'device_token_hash',
    kind: 'token',
  },
};

@Injectable()
export class ChannelAddresses {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * The contact's record to send to: the primary one that may be sent to, else the oldest that
   * may, else (none may) the primary or oldest; null when it has none of the channel.
   */
  bestOf(
    organizationId: string,
    channel: ProviderChannel,
    contactId: string,
  ): Promise<ChannelAddress | null> {
    return this.first(
      organizationId,
      channel,
      sql`contact_id = ${contactId}::uuid`,
      (refused) => sql`NOT ${refused} DESC, is_primary DESC, created_at, id`,
    );
  }

  /** The organization's record holding this address (one that refuses sending first), or null. */
  byAddress(
    organizationId: string,
    channel: ProviderChannel,
    address: string,
  ): Promise<ChannelAddress | null> {
    const source = SOURCES[channel];
    if (!source) return Promise.resolve(null);
    const hashes = blindIndexCandidatesOf(source.kind, address);
    return this.first(
      organizationId,
      channel,
      sql`${raw(source.hash)} = ANY(${hashes}::text[])`,
      (refused) => sql`${refused} DESC`,
    );
  }

  /** The first of the organization's records of the channel that match, in the order given. */
  private async first(
    organizationId: string,
    channel: ProviderChannel,
    where: Sql,
    order: (refused: Sql) => Sql,
  ): Promise<ChannelAddress | null> {
    const source = SOURCES[channel];
    if (!source) return null;
    const refused = sql`(status = ANY(${[...UNSENDABLE_RECORD_STATUSES[channel]]}::text[]))`;
    const rows = await query<Row>(
      this.ds,
      sql`SELECT address, status, is_primary, platform FROM (${source.from}
            WHERE organization_id = ${organizationId}::uuid AND ${where}) r
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
