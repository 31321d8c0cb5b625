// HTTP routes describing the caller: its credential and its organization.
import { Controller, Get } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { OrganizationService } from '@app/domain';
import type { AuthContext } from '@app/domain';
import { Auth, ResponseMessage } from '../http/decorators';
import { ApiEnvelope } from '../http/openapi-envelope';
import { CredentialResponse, toCredentialResponse } from './credential.response';
import { OrganizationResponse, toOrganizationResponse } from './organization.response';

@ApiTags('organization')
@ApiSecurity('apiKey')
@ApiSecurity('bearer')
@Controller('api/v1/user')
export class OrganizationController {
  constructor(private readonly orgs: OrganizationService) {}

  /** The credential itself: its organization, type and scopes. Any valid credential; no database read. */
  @Get('me')
  @ResponseMessage('Credential fetched successfully')
  @ApiEnvelope(CredentialResponse)
  me(@Auth() auth: AuthContext) {
    return toCredentialResponse(auth);
  }

  /** The caller's organization and the scopes of the credential used. Any valid credential. */
  @Get('organization')
  @ResponseMessage('Organization fetched successfully')
  @ApiEnvelope(OrganizationResponse)
  async get(@Auth() auth: AuthContext) {
    return toOrganizationResponse(await this.orgs.get(auth.organizationId), auth);
  }
}
