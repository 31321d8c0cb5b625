// HTTP transport of the message log: GET /api/v1/user/messages and …/messages/{jobId}.
import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { MessageLogService } from '@app/domain';
import { OrgId, RequireScopes, ResponseMessage } from '../http/decorators';
import { ApiEnvelope } from '../http/openapi-envelope';
import { PageMetaResponse } from '../http/page-meta.response';
import {
  MessageResponse,
  MessageSummaryResponse,
  toMessageResponse,
  toMessageSummaryResponse,
} from './message.response';
import { jobIdParam, ListMessagesQueryDto } from './messages.dto';

@ApiTags('messages')
@Controller('api/v1/user/messages')
@RequireScopes('messages:read')
export class MessagesController {
  constructor(private readonly log: MessageLogService) {}

  /** Messages newest first; filters status, channel, recipient, campaignId, from, to. */
  @Get()
  @ResponseMessage('Messages fetched successfully')
  @ApiEnvelope(MessageSummaryResponse, { isArray: true, meta: PageMetaResponse })
  async list(@OrgId() orgId: OrgId, @Query() q: ListMessagesQueryDto) {
    const { page = 1, limit = 20, ...filters } = q;
    return (await this.log.list(orgId, filters, { page, limit })).map(toMessageSummaryResponse);
  }

  /** One message with its delivery attempts and engagement events (each oldest first, ≤ 500). */
  @Get(':jobId')
  @ResponseMessage('Message fetched successfully')
  @ApiEnvelope(MessageResponse)
  async get(@OrgId() orgId: OrgId, @Param('jobId', jobIdParam) jobId: string) {
    return toMessageResponse(await this.log.get(orgId, jobId));
  }
}
