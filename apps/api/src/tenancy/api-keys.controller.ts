// HTTP routes of API key management (scope keys:manage).
import { Body, Controller, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiKeyService } from '@app/domain';
import type { AuthContext } from '@app/domain';
import { Auth, OrgId, RequireScopes, ResponseMessage } from '../http/decorators';
import { uuidParam } from '../http/params';
import { PageQueryDto } from '../http/page-query.dto';
import { ApiEnvelope } from '../http/openapi-envelope';
import { PageMetaResponse } from '../http/page-meta.response';
import {
  ApiKeyResponse,
  CreatedApiKeyResponse,
  toApiKeyResponse,
  toCreatedApiKeyResponse,
} from './api-key.response';
import { CreateApiKeyDto, UpdateApiKeyDto } from './api-keys.dto';

/** The calling API key, held to what it holds (§16); owner and admin tokens are not. */
function byKey(auth: AuthContext): string | undefined {
  return auth.principal.type === 'api_key' ? auth.principal.keyId : undefined;
}

@ApiTags('api-keys')
@Controller('api/v1/user/api-keys')
@RequireScopes('keys:manage')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeyService) {}

  @Get()
  @ResponseMessage('API keys fetched successfully')
  @ApiEnvelope(ApiKeyResponse, { isArray: true, meta: PageMetaResponse })
  async list(@OrgId() orgId: OrgId, @Query() q: PageQueryDto) {
    const page = await this.keys.list(orgId, { page: q.page ?? 1, limit: q.limit ?? 20 });
    return page.map(toApiKeyResponse);
  }

  /**
   * Creates a key; its value is returned here once, in `data.key`, and never again. Called with
   * an API key: only scopes that key holds and limits within its own (omitted limits are bounded
   * by it), else 403 E_FORBIDDEN.
   */
  @Post()
  @ResponseMessage('API key created successfully')
  @ApiEnvelope(CreatedApiKeyResponse, { status: 201 })
  async create(@Auth() auth: AuthContext, @Body() dto: CreateApiKeyDto) {
    return toCreatedApiKeyResponse(await this.keys.create(auth.organizationId, dto, byKey(auth)));
  }

  @Get(':id')
  @ResponseMessage('API key fetched successfully')
  @ApiEnvelope(ApiKeyResponse)
  async get(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    return toApiKeyResponse(await this.keys.get(orgId, id));
  }

  /**
   * Called with an API key: the key after the change may carry only scopes the caller holds, and
   * no limit or expiry may end above both the caller's own and the key's current value (a key
   * never raises its own). Else 403 E_FORBIDDEN.
   */
  @Patch(':id')
  @ResponseMessage('API key updated successfully')
  @ApiEnvelope(ApiKeyResponse)
  async update(
    @Auth() auth: AuthContext,
    @Param('id', uuidParam) id: string,
    @Body() dto: UpdateApiKeyDto,
  ) {
    return toApiKeyResponse(await this.keys.update(auth.organizationId, id, dto, byKey(auth)));
  }

  /**
   * Revokes the key: it answers 401 from then on, on every replica. Called with an API key: only
   * itself or keys within its scopes, else 403 E_FORBIDDEN.
   */
  @Delete(':id')
  @ResponseMessage('API key revoked successfully')
  @ApiEnvelope(ApiKeyResponse)
  async revoke(@Auth() auth: AuthContext, @Param('id', uuidParam) id: string) {
    return toApiKeyResponse(await this.keys.revoke(auth.organizationId, id, byKey(auth)));
  }
}
