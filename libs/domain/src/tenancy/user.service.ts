// Users, memberships and access tokens (§3).
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { normaliseEmail } from '../crypto/field-encryption';
import { assertAcceptablePassword, hashPassword } from '../crypto/passwords';
import { generateAccessToken, isWellFormedAccessToken, sha256Hex } from '../crypto/tokens';
import { inTransaction } from '../database/transaction';
import { ConflictError } from '../errors/domain-errors';
import { MembershipRepository } from './membership.repository';
import { OrganizationService } from './organization.service';
import type { Role } from './user.entity';
import { UserOrganization, UserRecord, UserRepository } from './user.repository';

export type { UserOrganization, UserRecord } from './user.repository';

const TOKEN_LIFETIME_MS = 24 * 60 * 60 * 1000;
/**
 * A token used as the dashboard's session cookie stays live while in use (its expiry slides to 24
 * hours after the last use), but never longer than this after it was issued.
 */
export const SESSION_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

export interface ResolvedToken {
  userId: string;
}

@Injectable()
export class UserService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly users: UserRepository,
    private readonly memberships: MembershipRepository,
    private readonly organizations: OrganizationService,
  ) {}

  /**
   * Makes the user (created when no user has the email; an existing one keeps its password) a
   * member of the organization. 404 for an unknown organization, 409 when already a member.
   */
  async createUser(input: {
    email: string;
    password: string;
    organizationId: OrgId;
    role: Role;
  }): Promise<UserRecord> {
    assertAcceptablePassword(input.password);
    const email = normaliseEmail(input.email);
    const org = await this.organizations.get(input.organizationId);
    return inTransaction(
      this.ds,
      async (em) => {
        const user =
          (await this.users.findByEmail(email, em)) ??
          (await this.users.insert(email, await hashPassword(input.password), em));
        if (await this.memberships.roleIn(org.id, user.id, em)) {
          throw new ConflictError('The user is already a member of this organization');
        }
        await this.memberships.addMember(org.id, user.id, input.role, em);
        return user;
      },
      1,
    );
  }

  /** The user a login names, with the stored password hash; null when no user has the email. */
  findForLogin(email: string): Promise<{ id: string; passwordHash: string } | null> {
    return this.users.credentialsOf(normaliseEmail(email));
  }

  /** Stores `next` unless the hash changed since `previous` was read (a concurrent change wins). */
  replacePasswordHash(userId: string, previous: string, next: string): Promise<boolean> {
    return this.users.replacePasswordHash(userId, previous, next);
  }

  async issueToken(
    userId: string,
    now = new Date(),
  ): Promise<{ accessToken: string; expiresAt: Date }> {
    const accessToken = generateAccessToken();
    const expiresAt = new Date(now.getTime() + TOKEN_LIFETIME_MS);
    await this.users.insertToken(userId, sha256Hex(accessToken), expiresAt);
    return { accessToken, expiresAt };
  }

  async logout(token: string): Promise<void> {
    await this.users.revokeToken(sha256Hex(token));
  }

  /**
   * The user behind a live token, or null when unknown, revoked or expired. `sliding` (the
   * dashboard's session) also moves the token's expiry to 24 hours from `now`, capped at
   * SESSION_MAX_AGE_MS after it was issued.
   */
  async resolveToken(
    token: string,
    now = new Date(),
    sliding = false,
  ): Promise<ResolvedToken | null> {
    if (!isWellFormedAccessToken(token)) return null;
    const hash = sha256Hex(token);
    const userId = sliding
      ? await this.users.userOfLiveTokenSliding(hash, now, TOKEN_LIFETIME_MS, SESSION_MAX_AGE_MS)
      : await this.users.userOfLiveToken(hash, now);
    return userId ? { userId } : null;
  }

  roleIn(userId: string, organizationId: OrgId): Promise<Role | null> {
    return this.memberships.roleIn(organizationId, userId);
  }

  /**
   * The organizations of the user behind a live access token, by name, with the user's role in
   * each; null when the token is unknown, revoked or expired. Keyed by the token's user: it lists
   * only organizations that user is a member of.
   */
  async organizationsOfToken(
    token: string,
    now = new Date(),
    sliding = false,
  ): Promise<UserOrganization[] | null> {
    const resolved = await this.resolveToken(token, now, sliding);
    if (!resolved) return null;
    return this.users.organizationsOf(resolved.userId);
  }
}
