// All SQL of login_ips: the client addresses each user signed in from, kept as keyed hashes so the
// table holds no address. A user belongs to no single organization, so these statements carry none.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { fieldCipher } from '../crypto/field-encryption';
import { query, sql } from '../database/sql';
import { ipLimitKey } from '../limits/ip-limits';

/** The text hashed for an IP: the client the per-IP limits count (an IPv6 client by its /64). */
function ipText(ip: string): string {
  return `login-ip:${ipLimitKey(ip)}`;
}

@Injectable()
export class LoginIpRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Whether `userId` signed in from `ip` before (under the current or an old key). */
  async isKnown(userId: string, ip: string): Promise<boolean> {
    const hashes = fieldCipher()
      .blindIndexCandidates(ipText(ip))
      .map((h) => Buffer.from(h, 'hex'));
    const rows = await query(
      this.ds,
      sql`SELECT 1 FROM login_ips WHERE user_id = ${userId} AND ip_hash = ANY(${hashes}::bytea[])`,
    );
    return rows.length > 0;
  }

  /** Records a successful sign-in of `userId` from `ip`. */
  async recordSuccess(userId: string, ip: string, now: Date): Promise<void> {
    const hash = Buffer.from(fieldCipher().blindIndex(ipText(ip)), 'hex');
    await query(
      this.ds,
      sql`INSERT INTO login_ips (user_id, ip_hash, last_success_at)
          VALUES (${userId}, ${hash}, ${now})
          ON CONFLICT (user_id, ip_hash) DO UPDATE SET last_success_at = EXCLUDED.last_success_at`,
    );
  }
}
