// HTTP routes of campaigns (§11, §17): one service call each.
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiExtraModels, ApiTags } from '@nestjs/swagger';
import { CampaignService } from '@app/domain';
import { OrgId, RequireScopes, ResponseMessage } from '../http/decorators';
import { ApiEnvelope } from '../http/openapi-envelope';
import { uuidParam } from '../http/params';
import {
  CampaignChannelSummaryDto,
  CampaignDetailDto,
  CampaignDto,
  CampaignReachDto,
  toCampaignResponse,
} from './campaign-response.dto';
import {
  CampaignListQueryDto,
  CampaignReachRequestDto,
  CreateCampaignDto,
  UpdateCampaignDto,
} from './campaigns.dto';

@ApiTags('campaigns')
@ApiExtraModels(CampaignChannelSummaryDto)
@Controller('api/v1/user/campaigns')
export class CampaignsController {
  constructor(private readonly campaigns: CampaignService) {}

  @Get()
  @RequireScopes('campaigns:read')
  @ResponseMessage('Campaigns fetched successfully')
  @ApiEnvelope(CampaignDto, { isArray: true })
  async list(@OrgId() orgId: OrgId, @Query() q: CampaignListQueryDto) {
    const page = await this.campaigns.list(orgId, {
      page: q.page ?? 1,
      limit: q.limit ?? 20,
      status: q.status,
    });
    return page.map(toCampaignResponse);
  }

  @Post()
  @RequireScopes('campaigns:write')
  @ResponseMessage('Campaign created successfully')
  @ApiEnvelope(CampaignDto)
  async create(@OrgId() orgId: OrgId, @Body() dto: CreateCampaignDto) {
    return toCampaignResponse(await this.campaigns.create(orgId, dto));
  }

  /**
   * How many contacts of a list or segment each channel would reach if a campaign were sent now
   * (a count: nothing is sent or stored).
   */
  @Post('reach')
  @HttpCode(200)
  @RequireScopes('campaigns:read')
  @ResponseMessage('Campaign reach counted successfully')
  @ApiEnvelope(CampaignReachDto)
  async reach(@OrgId() orgId: OrgId, @Body() dto: CampaignReachRequestDto) {
    return this.campaigns.reach(orgId, dto);
  }

  @Get(':id')
  @RequireScopes('campaigns:read')
  @ResponseMessage('Campaign fetched successfully')
  @ApiEnvelope(CampaignDetailDto)
  async get(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    const campaign = await this.campaigns.get(orgId, id);
    const [delivery, byChannel] = await Promise.all([
      this.campaigns.delivery(orgId, id),
      this.campaigns.byChannel(orgId, id),
    ]);
    return { ...toCampaignResponse(campaign), delivery, byChannel };
  }

  /** Drafts only (409 E_BUSINESS_RULE_VIOLATION otherwise). */
  @Patch(':id')
  @RequireScopes('campaigns:write')
  @ResponseMessage('Campaign updated successfully')
  @ApiEnvelope(CampaignDto)
  async update(
    @OrgId() orgId: OrgId,
    @Param('id', uuidParam) id: string,
    @Body() dto: UpdateCampaignDto,
  ) {
    return toCampaignResponse(await this.campaigns.update(orgId, id, dto));
  }

  /** Drafts only (409 E_BUSINESS_RULE_VIOLATION otherwise). */
  @Delete(':id')
  @RequireScopes('campaigns:write')
  @ResponseMessage('Campaign deleted successfully')
  @ApiEnvelope(CampaignDto)
  async remove(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    return toCampaignResponse(await this.campaigns.remove(orgId, id));
  }

  /** 202: the recipients are committed and the fan-out runs in the worker. */
  @Post(':id/send')
  @HttpCode(202)
  @RequireScopes('campaigns:write')
  @ResponseMessage('Campaign is being sent')
  @ApiEnvelope(CampaignDto)
  async send(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    return toCampaignResponse(await this.campaigns.send(orgId, id));
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @RequireScopes('campaigns:write')
  @ResponseMessage('Campaign cancelled successfully')
  @ApiEnvelope(CampaignDto)
  async cancel(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    return toCampaignResponse(await this.campaigns.cancel(orgId, id));
  }
}
