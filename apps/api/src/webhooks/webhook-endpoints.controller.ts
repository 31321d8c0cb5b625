// The webhook endpoint routes (§10): CRUD, statistics, secret regeneration and the test event.
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { WebhookDeliveryService, WebhookEndpointService } from '@app/domain';
import { OrgId, RequireScopes, ResponseMessage } from '../http/decorators';
import { ApiEnvelope, ApiEnvelopeNull } from '../http/openapi-envelope';
import { PageMetaResponse } from '../http/page-meta.response';
import { PageQueryDto } from '../http/page-query.dto';
import { uuidParam } from '../http/params';
import { CreateWebhookEndpointDto, UpdateWebhookEndpointDto } from './webhooks.dto';
import { WebhookDeliveryResponse, toWebhookDeliveryResponse } from './webhook-delivery.response';
import {
  toWebhookEndpointResponse,
  toWebhookEndpointWithSecretResponse,
  WebhookEndpointResponse,
  WebhookEndpointWithSecretResponse,
} from './webhook-endpoint.response';
import {
  toWebhookStatisticsResponse,
  WebhookStatisticsResponse,
} from './webhook-statistics.response';

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
  @ApiEnvelope(WebhookEndpointWithSecretResponse, { status: 201 })
  async create(@OrgId() orgId: OrgId, @Body() dto: CreateWebhookEndpointDto) {
    return toWebhookEndpointWithSecretResponse(await this.endpoints.create(orgId, dto));
  }

  @Get()
  @RequireScopes('webhooks:read')
  @ResponseMessage('Webhook endpoints fetched successfully')
  @ApiEnvelope(WebhookEndpointResponse, { isArray: true, meta: PageMetaResponse })
  async list(@OrgId() orgId: OrgId, @Query() q: PageQueryDto) {
    const page = await this.endpoints.list(orgId, { page: q.page ?? 1, limit: q.limit ?? 20 });
    return page.map(toWebhookEndpointResponse);
  }

  @Get('statistics')
  @RequireScopes('webhooks:read')
  @ResponseMessage('Webhook statistics fetched successfully')
  @ApiEnvelope(WebhookStatisticsResponse)
  async statistics(@OrgId() orgId: OrgId) {
    return toWebhookStatisticsResponse(await this.endpoints.statistics(orgId));
  }

  @Get(':id')
  @RequireScopes('webhooks:read')
  @ResponseMessage('Webhook endpoint fetched successfully')
  @ApiEnvelope(WebhookEndpointResponse)
  async get(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    return toWebhookEndpointResponse(await this.endpoints.view(orgId, id));
  }

  @Patch(':id')
  @RequireScopes('webhooks:write')
  @ResponseMessage('Webhook endpoint updated successfully')
  @ApiEnvelope(WebhookEndpointResponse)
  async update(
    @OrgId() orgId: OrgId,
    @Param('id', uuidParam) id: string,
    @Body() dto: UpdateWebhookEndpointDto,
  ) {
    return toWebhookEndpointResponse(await this.endpoints.update(orgId, id, dto));
  }

  /** Removes the endpoint, its secret and its delivery history irreversibly. */
  @Delete(':id')
  @RequireScopes('webhooks:write')
  @ResponseMessage('Webhook endpoint deleted successfully')
  @ApiEnvelopeNull()
  async remove(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    await this.endpoints.remove(orgId, id);
    return null;
  }

  @Post(':id/regenerate-secret')
  @HttpCode(200)
  @RequireScopes('webhooks:write')
  @ResponseMessage('Webhook secret regenerated successfully')
  @ApiEnvelope(WebhookEndpointWithSecretResponse)
  async regenerateSecret(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    return toWebhookEndpointWithSecretResponse(await this.endpoints.regenerateSecret(orgId, id));
  }

  /** Sends `test.event` to this endpoint only; returns the delivery. */
  @Post(':id/test')
  @RequireScopes('webhooks:write')
  @ResponseMessage('Test event queued')
  @ApiEnvelope(WebhookDeliveryResponse, { status: 201 })
  async test(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    return toWebhookDeliveryResponse(await this.deliveries.sendTest(orgId, id));
  }
}
