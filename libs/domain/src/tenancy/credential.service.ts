// Credential resolution (§3) for every transport: key or token, and the organization.
import { Injectable } from '@nestjs/common';
import { isUuid } from '../common/ids';
import { ForbiddenError, UnauthorizedAccessError } from '../errors/domain-errors';
import { ApiKeyService, ResolvedKey } from './api-key.service';
import { AuthContext } from './auth-context';
import { scopesForRole } from './scopes';
import { UserService } from './user.service';

export interface PresentedCredentials {
  apiKey?: string;
  authorization?: string;
  organizationId?: string;
}

@Injectable()
export class CredentialService {
  constructor(
    private readonly keys: ApiKeyService,
    private readonly users: UserService,
  ) {}

  async authenticate(presented: PresentedCredentials, now = new Date()): Promise<AuthContext> {
    if (presented.apiKey !== undefined)
      return this.fromKey(presented.apiKey, presented.organizationId, now);
    const auth = presented.authorization;
    if (auth === undefined) throw new UnauthorizedAccessError('Missing credentials');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (!match) throw new UnauthorizedAccessError('Malformed Authorization header');
    const value = match[1];
    if (value.startsWith('bk_')) return this.fromKey(value, presented.organizationId, now);
    return this.fromToken(value, presented.organizationId, now);
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

  private async fromToken(
    value: string,
    orgHeader: string | undefined,
    now: Date,
  ): Promise<AuthContext> {
    const token = await this.users.resolveToken(value, now);
    if (!token) throw new UnauthorizedAccessError('Invalid or expired access token');
    if (!orgHeader) throw new ForbiddenError('X-Organization-Id is required with an access token');
    if (!isUuid(orgHeader))
      throw new ForbiddenError('X-Organization-Id must be an organization id');
    const organizationId = orgHeader.toLowerCase();
    const role = await this.users.roleIn(token.userId, organizationId);
    if (!role) throw new ForbiddenError('Not a member of this organization');
    return {
      organizationId,
      scopes: new Set(scopesForRole(role)),
      principal: { type: 'user', userId: token.userId, role },
    };
  }
}
