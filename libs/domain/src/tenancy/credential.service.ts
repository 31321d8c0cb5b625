// Credential resolution (§3) for every transport: key or token, and the organization.
import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { isUuid } from '../common/ids';
import { asOrgId } from '../common/org-id';
import { ForbiddenError, UnauthorizedAccessError } from '../errors/domain-errors';
import { ApiKeyService, ResolvedKey } from './api-key.service';
import { AuthContext } from './auth-context';
import { scopesForRole } from './scopes';
import { UserOrganization, UserService } from './user.service';

export interface PresentedCredentials {
  apiKey?: string;
  authorization?: string;
  /**
   * The dashboard's session cookie (§15): the access token it holds, and whether the request also
   * carried the dashboard's header, which a cross-site form cannot send.
   */
  session?: { token: string; withHeader: boolean };
  organizationId?: string;
}

/** An access token as a request presents it; `session` when it came in the session cookie. */
interface PresentedToken {
  value: string;
  session: boolean;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const SESSION_WITHOUT_HEADER =
  'The session cookie is accepted only with X-Requested-With: dashboard';

/** The session cookie's token, accepted only beside the dashboard's header (§15). */
function sessionToken(presented: PresentedCredentials, missing: string): PresentedToken {
  const session = presented.session;
  if (!session) throw new UnauthorizedAccessError(missing);
  if (!session.withHeader) throw new UnauthorizedAccessError(SESSION_WITHOUT_HEADER);
  return { value: session.token, session: true };
}

@Injectable()
export class CredentialService {
  constructor(
    private readonly keys: ApiKeyService,
    private readonly users: UserService,
    private readonly clock: Clock,
  ) {}

  /**
   * §3 order: X-API-Key, else Authorization, else (neither present) the session cookie. The
   * cookie is never consulted beside another credential, so a bad key or token is not rescued by
   * it.
   */
  async authenticate(
    presented: PresentedCredentials,
    now = this.clock.now(),
  ): Promise<AuthContext> {
    if (presented.apiKey !== undefined)
      return this.fromKey(presented.apiKey, presented.organizationId, now);
    const auth = presented.authorization;
    if (auth === undefined) {
      const token = sessionToken(presented, 'Missing credentials');
      return this.fromToken(token, presented.organizationId, now);
    }
    const match = BEARER.exec(auth);
    if (!match) throw new UnauthorizedAccessError('Malformed Authorization header');
    const value = match[1];
    if (value.startsWith('bk_')) return this.fromKey(value, presented.organizationId, now);
    return this.fromToken({ value, session: false }, presented.organizationId, now);
  }

  /**
   * The organizations of the user behind the presented access token (in the same order as
   * authenticate; an API key is no access token): 401 without a live one.
   */
  async organizationsOf(
    presented: PresentedCredentials,
    now = this.clock.now(),
  ): Promise<UserOrganization[]> {
    const token = this.accessTokenOf(presented);
    const organizations = await this.users.organizationsOfToken(token.value, now, token.session);
    if (!organizations) throw new UnauthorizedAccessError('Invalid or expired access token');
    return organizations;
  }

  /** Revokes the presented access token; nothing to revoke (none, or an API key) is no error. */
  async logout(presented: PresentedCredentials): Promise<void> {
    let token: PresentedToken;
    try {
      token = this.accessTokenOf(presented);
    } catch (err) {
      if (err instanceof UnauthorizedAccessError) return;
      throw err;
    }
    await this.users.logout(token.value);
  }

  /** Checks an API key value alone (SMTP AUTH); null when it is not a live key. */
  async liveKey(value: string, now = new Date()): Promise<ResolvedKey | null> {
    const key = await this.keys.resolve(value, now);
    if (!key || key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= now.getTime()))
      return null;
    return key;
  }

  private async fromKey(
    value: string,
    orgHeader: string | undefined,
    now: Date,
  ): Promise<AuthContext> {
    const key = await this.keys.resolve(value.trim(), now);
    if (!key) throw new UnauthorizedAccessError('Invalid API key');
    if (key.revokedAt) throw new UnauthorizedAccessError('API key has been revoked');
    if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) {
      throw new UnauthorizedAccessError('API key has expired');
    }
    if (orgHeader !== undefined && orgHeader.toLowerCase() !== key.organizationId) {
      throw new ForbiddenError('X-Organization-Id does not match the API key organization');
    }
    return {
      organizationId: key.organizationId,
      scopes: new Set(key.scopes),
      principal: {
        type: 'api_key',
        keyId: key.id,
        rateLimitPerMinute: key.rateLimitPerMinute,
        rateLimitPerDay: key.rateLimitPerDay,
      },
    };
  }

  /** The access token the request presents, in §3 order; 401 when it presents none. */
  private accessTokenOf(presented: PresentedCredentials): PresentedToken {
    if (presented.apiKey !== undefined)
      throw new UnauthorizedAccessError('An access token is required');
    if (presented.authorization !== undefined) {
      const value = BEARER.exec(presented.authorization)?.[1];
      if (!value || value.startsWith('bk_'))
        throw new UnauthorizedAccessError('An access token is required');
      return { value, session: false };
    }
    return sessionToken(presented, 'An access token is required');
  }

  private async fromToken(
    presented: PresentedToken,
    orgHeader: string | undefined,
    now: Date,
  ): Promise<AuthContext> {
    const token = await this.users.resolveToken(presented.value, now, presented.session);
    if (!token) throw new UnauthorizedAccessError('Invalid or expired access token');
    if (!orgHeader) throw new ForbiddenError('X-Organization-Id is required with an access token');
    if (!isUuid(orgHeader))
      throw new ForbiddenError('X-Organization-Id must be an organization id');
    // The header names the organization; the user's membership of it is what makes it trusted.
    const organizationId = asOrgId(orgHeader.toLowerCase());
    const role = await this.users.roleIn(token.userId, organizationId);
    if (!role) throw new ForbiddenError('Not a member of this organization');
    return {
      organizationId,
      scopes: new Set(scopesForRole(role)),
      principal: { type: 'user', userId: token.userId, role },
    };
  }
}
