import { Controller, Get } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { OrganizationService } from '@app/domain';
import type { AuthContext } from '@app/domain';
import { Auth, ResponseMessage } from '../http/decorators';

@ApiTags('organization')
@ApiSecurity('apiKey')
@ApiSecurity('bearer')
@Controller('api/v1/user/organization')
export class OrganizationController {
  constructor(private readonly orgs: OrganizationService) {}

  /** The caller's organization and the scopes of the credential used. Any valid credential. */
  @Get()
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
