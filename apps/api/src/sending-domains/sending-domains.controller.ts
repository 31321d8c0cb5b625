// The sending-domain routes of §13: create, list, read, check DNS now, delete.
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { SendingDomainService } from '@app/domain';
import { OrgId, RequireScopes, ResponseMessage } from '../http/decorators';
import { ApiEnvelope, ApiEnvelopeNull } from '../http/openapi-envelope';
import { PageQueryDto } from '../http/page-query.dto';
import { uuidParam } from '../http/params';
import { PageMetaResponse } from '../http/page-meta.response';
import { SendingDomainResponse, toSendingDomainResponse } from './sending-domain.response';
import { CreateSendingDomainDto } from './sending-domains.dto';

@ApiTags('sending-domains')
@Controller('api/v1/user/sending-domains')
export class SendingDomainsController {
  constructor(private readonly domains: SendingDomainService) {}

  /** Creates the domain with a new DKIM key; `dnsRecords` lists what to publish. */
  @Post()
  @RequireScopes('domains:write')
  @ResponseMessage('Sending domain created successfully')
  @ApiEnvelope(SendingDomainResponse, { status: 201 })
  async create(@OrgId() orgId: OrgId, @Body() dto: CreateSendingDomainDto) {
    return toSendingDomainResponse(await this.domains.create(orgId, dto));
  }

  @Get()
  @RequireScopes('domains:read')
  @ResponseMessage('Sending domains fetched successfully')
  @ApiEnvelope(SendingDomainResponse, { isArray: true, meta: PageMetaResponse })
  async list(@OrgId() orgId: OrgId, @Query() q: PageQueryDto) {
    const page = await this.domains.list(orgId, { page: q.page ?? 1, limit: q.limit ?? 20 });
    return page.map(toSendingDomainResponse);
  }

  @Get(':id')
  @RequireScopes('domains:read')
  @ResponseMessage('Sending domain fetched successfully')
  @ApiEnvelope(SendingDomainResponse)
  async get(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    return toSendingDomainResponse(await this.domains.get(orgId, id));
  }

  /** Looks the records up now and answers the domain with each record's status. */
  @Post(':id/verify')
  @HttpCode(200)
  @RequireScopes('domains:write')
  @ResponseMessage('Sending domain checked')
  @ApiEnvelope(SendingDomainResponse)
  async verify(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    return toSendingDomainResponse(await this.domains.verify(orgId, id));
  }

  /** Removes the domain and its key: mail From it is no longer signed (nor allowed under `require`). */
  @Delete(':id')
  @RequireScopes('domains:write')
  @ResponseMessage('Sending domain deleted successfully')
  @ApiEnvelopeNull()
  async remove(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    await this.domains.remove(orgId, id);
    return null;
  }
}
