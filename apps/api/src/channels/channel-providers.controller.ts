// The provider-account routes of §17: create, list, read, change, delete, and a test send.
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ChannelProviderService } from '@app/domain';
import { OrgId, RequireScopes, ResponseMessage } from '../http/decorators';
import { ApiEnvelope, ApiEnvelopeNull } from '../http/openapi-envelope';
import { uuidParam } from '../http/params';
import { PageMetaResponse } from '../http/page-meta.response';
import {
  ChannelProviderResponse,
  ChannelProviderTestResponse,
  CreatedChannelProviderResponse,
  toChannelProviderResponse,
  toChannelProviderTestResponse,
  toCreatedChannelProviderResponse,
} from './channel-provider.response';
import {
  ChannelProviderQueryDto,
  CreateChannelProviderDto,
  TestChannelProviderDto,
  UpdateChannelProviderDto,
} from './channel-providers.dto';

@ApiTags('channel-providers')
@Controller('api/v1/user/channel-providers')
export class ChannelProvidersController {
  constructor(private readonly providers: ChannelProviderService) {}

  /** Connects a provider account; an `http` provider without a secret gets one, shown here once. */
  @Post()
  @RequireScopes('channels:write')
  @ResponseMessage('Channel provider created successfully')
  @ApiEnvelope(CreatedChannelProviderResponse, { status: 201 })
  async create(@OrgId() orgId: OrgId, @Body() dto: CreateChannelProviderDto) {
    return toCreatedChannelProviderResponse(await this.providers.create(orgId, dto));
  }

  @Get()
  @RequireScopes('channels:read')
  @ResponseMessage('Channel providers fetched successfully')
  @ApiEnvelope(ChannelProviderResponse, { isArray: true, meta: PageMetaResponse })
  async list(@OrgId() orgId: OrgId, @Query() q: ChannelProviderQueryDto) {
    const page = await this.providers.list(
      orgId,
      { channel: q.channel },
      { page: q.page ?? 1, limit: q.limit ?? 20 },
    );
    return page.map(toChannelProviderResponse);
  }

  @Get(':id')
  @RequireScopes('channels:read')
  @ResponseMessage('Channel provider fetched successfully')
  @ApiEnvelope(ChannelProviderResponse)
  async get(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    return toChannelProviderResponse(await this.providers.get(orgId, id));
  }

  /** Credentials and settings given are replaced whole; credentials stay write-only. */
  @Patch(':id')
  @RequireScopes('channels:write')
  @ResponseMessage('Channel provider updated successfully')
  @ApiEnvelope(CreatedChannelProviderResponse)
  async update(
    @OrgId() orgId: OrgId,
    @Param('id', uuidParam) id: string,
    @Body() dto: UpdateChannelProviderDto,
  ) {
    return toCreatedChannelProviderResponse(await this.providers.update(orgId, id, dto));
  }

  @Delete(':id')
  @RequireScopes('channels:write')
  @ResponseMessage('Channel provider deleted successfully')
  @ApiEnvelopeNull()
  async remove(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    await this.providers.remove(orgId, id);
    return null;
  }

  /** Sends one message through the provider now and answers what the provider said. */
  @Post(':id/test')
  @HttpCode(200)
  @RequireScopes('channels:write')
  @ResponseMessage('Test message handed to the provider')
  @ApiEnvelope(ChannelProviderTestResponse)
  async test(
    @OrgId() orgId: OrgId,
    @Param('id', uuidParam) id: string,
    @Body() dto: TestChannelProviderDto,
  ) {
    return toChannelProviderTestResponse(await this.providers.test(orgId, id, dto));
  }
}
