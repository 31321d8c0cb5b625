// The worker's claim of sending domains due a DNS check, across organizations: each domain comes
// back with its organization id, and its check is recorded by that organization's statements
// (sending-domain.repository.ts).
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { query, sql } from '../database/sql';
import type { SendingDomain } from './sending-domain.entity';
import { COLUMNS, DomainRow, toDomain } from './sending-domain.repository';

@Injectable()
export class SendingDomainSweeper {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Claims up to `limit` domains due a check, across organizations: their next check moves
   * `leaseMs` ahead, so that a worker that dies mid-check leaves them to be checked again then,
   * and another worker meanwhile passes them by.
   */
  async claimDue(now: Date, limit: number, leaseMs: number): Promise<SendingDomain[]> {
    const rows = await query<DomainRow>(
      this.ds,
      sql`UPDATE sending_domains d
             SET next_check_at = ${new Date(now.getTime() + leaseMs)}
           WHERE d.id IN (SELECT id FROM sending_domains
                           WHERE next_check_at <= ${now}
                           ORDER BY next_check_at LIMIT ${limit}
                           FOR UPDATE SKIP LOCKED)
          RETURNING ${COLUMNS}`,
    );
    return rows.map(toDomain);
  }
}
