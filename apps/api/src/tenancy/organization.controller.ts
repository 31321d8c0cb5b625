// HTTP routes describing the caller: its credential and its organization.
import { Controller, Get } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { OrganizationService } from '@app/domain';
import type { AuthContext } from '@app/domain';
import { Auth, ResponseMessage } from '../http/decorators';

@ApiTags('organization')
@ApiSecurity('apiKey')
@ApiSecurity('bearer')
@Controller('api/v1/user')
export class OrganizationController {
  constructor(private readonly orgs: OrganizationService) {}

  /** The credential itself: its organization, type and scopes. Any valid credential; no database read. */
  @Get('me')
  @ResponseMessage('Credential fetched successfully')
  me(@Auth() auth: AuthContext) {
    return {
      organizationId: auth.organizationId,
      type: auth.principal.type,
      keyId: auth.principal.type === 'api_key' ? auth.principal.keyId : null,
      userId: auth.principal.type === 'user' ? auth.principal.userId : null,
      scopes: [...auth.scopes],
    };
  }

  /** The caller's organization and the scopes of the credential used. Any valid credential. */
  @Get('organization')
  @ResponseMessage('Organization fetched successfully')
  async get(@Auth() auth: AuthContext) {
    const org = await this.orgs.get(auth.organizationId);
    return {
      id: org.id,
      name: org.name,
      plan: org.plan,
      subscriptionStatus: org.subscriptionStatus,
      messageRetentionDays: org.messageRetentionDays,
      credential: { type: auth.principal.type, scopes: [...auth.scopes] },
      createdAt: org.createdAt,
      updatedAt: org.updatedAt,
    };
  }
}
