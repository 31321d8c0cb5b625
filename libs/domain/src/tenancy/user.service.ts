// Users, memberships and access tokens (§3): a login (./login.service) is issued a 24 h `at_`
// token stored as a hash.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { normaliseEmail } from '../crypto/field-encryption';
import { assertAcceptablePassword, hashPassword } from '../crypto/passwords';
import { generateAccessToken, isWellFormedAccessToken, sha256Hex } from '../crypto/tokens';
import { ConflictError, NotFoundError } from '../errors/domain-errors';
import { Organization } from './organization.entity';
import { AccessToken, Membership, Role, User } from './user.entity';

const TOKEN_LIFETIME_MS = 24 * 60 * 60 * 1000;

export interface ResolvedToken {
  userId: string;
}

@Injectable()
export class UserService {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async createUser(input: {
    email: string;
    password: string;
    organizationId: string;
    role: Role;
  }): Promise<User> {
    assertAcceptablePassword(input.password);
    const email = normaliseEmail(input.email);
    const org = await this.ds.getRepository(Organization).findOneBy({ id: input.organizationId });
    if (!org) throw new NotFoundError('Organization');
    return this.ds.transaction(async (em) => {
      let user = await em
        .getRepository(User)
        .createQueryBuilder('u')
        .where('lower(u.email) = :email', { email })
        .getOne();
      if (!user) {
        user = await em.save(
          em.create(User, { email, passwordHash: await hashPassword(input.password) }),
        );
      }
      const existing = await em.findOneBy(Membership, { userId: user.id, organizationId: org.id });
      if (existing) throw new ConflictError('The user is already a member of this organization');
      await em.insert(Membership, { userId: user.id, organizationId: org.id, role: input.role });
      return user;
    });
  }

  /** The user a login names, with the stored password hash; null when no user has the email. */
  async findForLogin(email: string): Promise<{ id: string; passwordHash: string } | null> {
    const user = await this.ds
      .getRepository(User)
      .createQueryBuilder('u')
      .addSelect('u.passwordHash')
      .where('lower(u.email) = :email', { email: normaliseEmail(email) })
      .getOne();
    return user ? { id: user.id, passwordHash: user.passwordHash } : null;
  }

  /** Stores `next` unless the hash changed since `previous` was read (a concurrent change wins). */
  async replacePasswordHash(userId: string, previous: string, next: string): Promise<boolean> {
    const res = await this.ds
      .getRepository(User)
      .createQueryBuilder()
      .update()
      .set({ passwordHash: next })
      .where('id = :userId AND password_hash = :previous', { userId, previous })
      .execute();
    return (res.affected ?? 0) > 0;
  }

  async issueToken(
    userId: string,
    now = new Date(),
  ): Promise<{ accessToken: string; expiresAt: Date }> {
    const accessToken = generateAccessToken();
    const expiresAt = new Date(now.getTime() + TOKEN_LIFETIME_MS);
    await this.ds.getRepository(AccessToken).insert({
      userId,
      tokenHash: sha256Hex(accessToken),
      expiresAt,
      revokedAt: null,
    });
    return { accessToken, expiresAt };
  }

  async logout(token: string): Promise<void> {
    await this.ds
      .getRepository(AccessToken)
      .createQueryBuilder()
      .update()
      .set({ revokedAt: () => 'now()' })
      .where('token_hash = :hash AND revoked_at IS NULL', { hash: sha256Hex(token) })
      .execute();
  }

  /** The user behind a live token, or null when unknown, revoked or expired. */
  async resolveToken(token: string, now = new Date()): Promise<ResolvedToken | null> {
    if (!isWellFormedAccessToken(token)) return null;
    const rows: { user_id: string }[] = await this.ds.query(
      `SELECT user_id FROM access_tokens WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > $2`,
      [sha256Hex(token), now],
    );
    return rows[0] ? { userId: rows[0].user_id } : null;
  }

  async roleIn(userId: string, organizationId: string): Promise<Role | null> {
    const m = await this.ds.getRepository(Membership).findOneBy({ userId, organizationId });
    return m?.role ?? null;
  }

  /**
   * The organizations of the user behind a live access token, by name, with the user's role in
   * each; null when the token is unknown, revoked or expired. Keyed by the token's user: it lists
   * only organizations that user is a member of.
   */
  async organizationsOfToken(token: string, now = new Date()): Promise<UserOrganization[] | null> {
    const resolved = await this.resolveToken(token, now);
    if (!resolved) return null;
    return this.ds.query(
      `SELECT o.id, o.name, o.plan, m.role
         FROM memberships m JOIN organizations o ON o.id = m.organization_id
        WHERE m.user_id = $1
        ORDER BY o.name, o.id`,
      [resolved.userId],
    );
  }
}

/** One organization a user belongs to, as the dashboard's organization picker lists it. */
export interface UserOrganization {
  id: string;
  name: string;
  plan: string;
  role: Role;
}
