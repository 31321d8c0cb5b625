// All SQL of users and access tokens, and the organizations a user belongs to.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { query, sql } from '../database/sql';
import { AccessToken, Role, User } from './user.entity';

/** A user as other code sees it: never its password hash. */
export type UserRecord = Pick<User, 'id' | 'email'>;

/** One organization a user belongs to, as the dashboard's organization picker lists it. */
export interface UserOrganization {
  id: string;
  name: string;
  plan: string;
  role: Role;
}

/**
 * A user belongs to no single organization (a membership ties it to one), so the statements about
 * users, their tokens and the list of their organizations carry none; the statements about one
 * organization's memberships are MembershipRepository's.
 */
@Injectable()
export class UserRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  private em(em?: EntityManager): EntityManager {
    return em ?? this.ds.manager;
  }

  // ---- the user's memberships ------------------------------------------------------------------

  /** The organizations of a user, by name, with the user's role in each. */
  organizationsOf(userId: string): Promise<UserOrganization[]> {
    return query<UserOrganization>(
      this.ds,
      sql`SELECT o.id, o.name, o.plan, m.role
            FROM memberships m JOIN organizations o ON o.id = m.organization_id
           WHERE m.user_id = ${userId}
           ORDER BY o.name, o.id`,
    );
  }

  // ---- users -------------------------------------------------------------------------------------

  /** The user with this (normalised) email, compared case-insensitively. */
  async findByEmail(email: string, em?: EntityManager): Promise<UserRecord | null> {
    const [row] = await query<UserRecord>(
      this.em(em),
      sql`SELECT id, email FROM users WHERE lower(email) = ${email}`,
    );
    return row ?? null;
  }

  async insert(email: string, passwordHash: string, em: EntityManager): Promise<UserRecord> {
    const { identifiers } = await em.insert(User, { email, passwordHash });
    return { id: (identifiers[0] as { id: string }).id, email };
  }

  /** Id and password hash of the user with this (normalised) email. */
  async credentialsOf(email: string): Promise<{ id: string; passwordHash: string } | null> {
    const [row] = await query<{ id: string; passwordHash: string }>(
      this.ds,
      sql`SELECT id, password_hash AS "passwordHash" FROM users WHERE lower(email) = ${email}`,
    );
    return row ?? null;
  }

  /** Stores `next` unless the hash changed since `previous` was read; true when it did. */
  async replacePasswordHash(userId: string, previous: string, next: string): Promise<boolean> {
    const rows = await query(
      this.ds,
      sql`UPDATE users SET password_hash = ${next}, updated_at = CURRENT_TIMESTAMP
           WHERE id = ${userId} AND password_hash = ${previous}
          RETURNING id`,
    );
    return rows.length > 0;
  }

  // ---- access tokens -----------------------------------------------------------------------------

  async insertToken(userId: string, tokenHash: string, expiresAt: Date): Promise<void> {
    await this.ds.manager.insert(AccessToken, { userId, tokenHash, expiresAt, revokedAt: null });
  }

  async revokeToken(tokenHash: string): Promise<void> {
    await query(
      this.ds,
      sql`UPDATE access_tokens SET revoked_at = now()
           WHERE token_hash = ${tokenHash} AND revoked_at IS NULL`,
    );
  }

  /** The user of a token that is neither revoked nor expired at `now`. */
  async userOfLiveToken(tokenHash: string, now: Date): Promise<string | null> {
    const [row] = await query<{ user_id: string }>(
      this.ds,
      sql`SELECT user_id FROM access_tokens
           WHERE token_hash = ${tokenHash} AND revoked_at IS NULL AND expires_at > ${now}`,
    );
    return row?.user_id ?? null;
  }

  /**
   * As userOfLiveToken, and moves the token's expiry to `now + idleMs`, never past its creation
   * plus `capMs`. The row is written only when that moves the expiry by a minute or more, so a
   * session in constant use costs at most one write a minute.
   */
  async userOfLiveTokenSliding(
    tokenHash: string,
    now: Date,
    idleMs: number,
    capMs: number,
  ): Promise<string | null> {
    const [row] = await query<{ user_id: string }>(
      this.ds,
      sql`WITH live AS (
            SELECT id, user_id, expires_at,
                   LEAST(${now}::timestamptz + ${idleMs}::float8 * interval '1 millisecond',
                         created_at + ${capMs}::float8 * interval '1 millisecond') AS slid
              FROM access_tokens
             WHERE token_hash = ${tokenHash} AND revoked_at IS NULL AND expires_at > ${now}
          ), moved AS (
            UPDATE access_tokens t SET expires_at = live.slid
              FROM live
             WHERE t.id = live.id AND live.slid >= live.expires_at + interval '1 minute'
          )
          SELECT user_id FROM live`,
    );
    return row?.user_id ?? null;
  }
}
