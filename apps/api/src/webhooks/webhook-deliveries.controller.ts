// GET /webhook-deliveries, one delivery, and its resend (§10).
import { Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { WebhookDeliveryService } from '@app/domain';
import type { Response } from 'express';
import { OrgId, RequireScopes, ResponseMessage } from '../http/decorators';
import { RawResponse } from '../http/envelope';
import { ApiEnvelope } from '../http/openapi-envelope';
import { uuidParam } from '../http/params';
import { DeliveryListQueryDto } from './webhooks.dto';
import {
  toWebhookDeliveryPageMetaResponse,
  toWebhookDeliveryResponse,
  WebhookDeliveryPageMetaResponse,
  WebhookDeliveryResponse,
} from './webhook-delivery.response';

@ApiTags('webhooks')
@Controller('api/v1/user/webhook-deliveries')
export class WebhookDeliveriesController {
  constructor(private readonly deliveries: WebhookDeliveryService) {}

  /**
   * Newest first, cursor-paged: `meta` is {limit, hasMore, nextCursor} (§10), which the shared
   * page envelope does not know, so this handler writes its envelope itself.
   */
  @Get()
  @RequireScopes('webhooks:read')
  @ApiEnvelope(WebhookDeliveryResponse, { isArray: true, meta: WebhookDeliveryPageMetaResponse })
  async list(@OrgId() orgId: OrgId, @Query() q: DeliveryListQueryDto, @Res() res: Response) {
    const list = await this.deliveries.list(orgId, {
      webhookEndpointId: q.webhookEndpointId,
      statuses: q.status,
      type: q.type,
      includeAttempts: q.includeAttempts ?? false,
      limit: q.limit ?? 20,
      cursor: q.cursor,
    });
    res.status(200).json({
      success: true,
      message: 'Webhook deliveries fetched successfully',
      data: list.items.map(toWebhookDeliveryResponse),
      meta: toWebhookDeliveryPageMetaResponse(list.meta),
    });
    return new RawResponse();
  }

  @Get(':id')
  @RequireScopes('webhooks:read')
  @ResponseMessage('Webhook delivery fetched successfully')
  @ApiEnvelope(WebhookDeliveryResponse)
  async get(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    return toWebhookDeliveryResponse(await this.deliveries.get(orgId, id));
  }

  /** Resends per the spec's transitions (400 once delivered; not sent once attempts are exhausted). */
  @Post(':id/retry')
  @HttpCode(200)
  @RequireScopes('webhooks:write')
  @ResponseMessage('Webhook delivery retry processed')
  @ApiEnvelope(WebhookDeliveryResponse)
  async retry(@OrgId() orgId: OrgId, @Param('id', uuidParam) id: string) {
    return toWebhookDeliveryResponse(await this.deliveries.retry(orgId, id));
  }
}
