import { Body, Controller, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiKeyService } from '@app/domain';
import { OrgId, RequireScopes, ResponseMessage } from '../http/decorators';
import { uuidParam } from '../http/params';
import { CreateApiKeyDto, PageQueryDto, toApiKeyResponse, UpdateApiKeyDto } from './api-keys.dto';

@ApiTags('api-keys')
@Controller('api/v1/user/api-keys')
@RequireScopes('keys:manage')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeyService) {}

  @Get()
  @ResponseMessage('API keys fetched successfully')
  async list(@OrgId() orgId: string, @Query() q: PageQueryDto) {
    const page = await this.keys.list(orgId, { page: q.page ?? 1, limit: q.limit ?? 20 });
    return page.map(toApiKeyResponse);
  }

  /** Creates a key; its value is returned here once, in `data.key`, and never again. */
  @Post()
  @ResponseMessage('API key created successfully')
  async create(@OrgId() orgId: string, @Body() dto: CreateApiKeyDto) {
    const { key, value } = await this.keys.create(orgId, dto);
    return { ...toApiKeyResponse(key), key: value };
  }

  @Get(':id')
  @ResponseMessage('API key fetched successfully')
  async get(@OrgId() orgId: string, @Param('id', uuidParam) id: string) {
    return toApiKeyResponse(await this.keys.get(orgId, id));
  }

  @Patch(':id')
  @ResponseMessage('API key updated successfully')
  async update(
    @OrgId() orgId: string,
    @Param('id', uuidParam) id: string,
    @Body() dto: UpdateApiKeyDto,
  ) {
    return toApiKeyResponse(await this.keys.update(orgId, id, dto));
  }

  /** Revokes the key: it answers 401 from then on. */
  @Delete(':id')
  @ResponseMessage('API key revoked successfully')
  async revoke(@OrgId() orgId: string, @Param('id', uuidParam) id: string) {
    return toApiKeyResponse(await this.keys.revoke(orgId, id));
  }
}
