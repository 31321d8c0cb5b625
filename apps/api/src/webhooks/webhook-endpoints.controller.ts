// The webhook endpoint routes (§10): CRUD, statistics, secret regeneration and the test event.
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { WebhookDeliveryService, WebhookEndpointService } from '@app/domain';
import { OrgId, RequireScopes, ResponseMessage } from '../http/decorators';
import { PageQueryDto } from '../http/page-query.dto';
import { uuidParam } from '../http/params';
import { CreateWebhookEndpointDto, UpdateWebhookEndpointDto } from './webhooks.dto';
import { toDeliveryResponse, toEndpointResponse, toEndpointWithSecret } from './webhooks.mapper';

@ApiTags('webhooks')
@Controller('api/v1/user/webhook-endpoints')
export class WebhookEndpointsController {
  constructor(
    private readonly endpoints: WebhookEndpointService,
    private readonly deliveries: WebhookDeliveryService,
  ) {}

  /** Creates an endpoint; its signing secret is returned here in `data.secret`, and on regeneration. */
  @Post()
  @RequireScopes('webhooks:write')
  @ResponseMessage('Webhook endpoint created successfully')
  async create(@OrgId() orgId: OrgId, @Body() dto: CreateWebhookEndpointDto) {
    return toEndpointWithSecret(await this.endpoints.create(orgId, dto));
  }

  @Get()
  @RequireScopes('webhooks:read')
  @ResponseMessage('Webhook endpoints fetched successfully')
  async list(@OrgId() orgId: OrgId, @Query() q: PageQueryDto) {
    const page = await this.endpoints.list(orgId, { page: q.page ?? 1, limit: q.limit ?? 20 });
    return page.map(toEndpointResponse);
  }

  @Get('statistics')
  @RequireScopes('webhooks:read')
  @ResponseMessage('Webhook statistics fetched successfully')
  statistics(@OrgId() orgId: OrgId) {
    return this.endpoints.statistics(orgId);
  }

  @Get(':id')
  @RequireScopes('webhooks:read')
  @ResponseMessage('Webhook endpoint fetched successfully')
  async get(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    return toEndpointResponse(await this.endpoints.view(orgId, id));
  }

  @Patch(':id')
  @RequireScopes('webhooks:write')
  @ResponseMessage('Webhook endpoint updated successfully')
  async update(
    @OrgId() orgId: OrgId,
    @Param('id', uuidParam) id: string,
    @Body() dto: UpdateWebhookEndpointDto,
  ) {
    return toEndpointResponse(await this.endpoints.update(orgId, id, dto));
  }

  /** Removes the endpoint, its secret and its delivery history irreversibly. */
  @Delete(':id')
  @RequireScopes('webhooks:write')
  @ResponseMessage('Webhook endpoint deleted successfully')
  async remove(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    await this.endpoints.remove(orgId, id);
    return null;
  }

  @Post(':id/regenerate-secret')
  @HttpCode(200)
  @RequireScopes('webhooks:write')
  @ResponseMessage('Webhook secret regenerated successfully')
  async regenerateSecret(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    return toEndpointWithSecret(await this.endpoints.regenerateSecret(orgId, id));
  }

  /** Sends `test.event` to this endpoint only; returns the delivery. */
  @Post(':id/test')
  @RequireScopes('webhooks:write')
  @ResponseMessage('Test event queued')
  async test(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    return toDeliveryResponse(await this.deliveries.sendTest(orgId, id));
  }
}
