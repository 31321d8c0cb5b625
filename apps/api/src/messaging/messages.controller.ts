// HTTP transport of the message log: GET /api/v1/user/messages and …/messages/{jobId}.
import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { MessageLogService } from '@app/domain';
import { OrgId, RequireScopes, ResponseMessage } from '../http/decorators';
import {
  jobIdParam,
  ListMessagesQueryDto,
  toMessageListItem,
  toMessageResponse,
} from './messages.dto';

@ApiTags('messages')
@Controller('api/v1/user/messages')
@RequireScopes('messages:read')
export class MessagesController {
  constructor(private readonly log: MessageLogService) {}

  /** Messages newest first; filters status, channel, recipient, campaignId, from, to. */
  @Get()
  @ResponseMessage('Messages fetched successfully')
  async list(@OrgId() orgId: OrgId, @Query() q: ListMessagesQueryDto) {
    const { page = 1, limit = 20, ...filters } = q;
    return (await this.log.list(orgId, filters, { page, limit })).map(toMessageListItem);
  }

  /** One message with its delivery attempts and engagement events (each oldest first, ≤ 500). */
  @Get(':jobId')
  @ResponseMessage('Message fetched successfully')
  async get(@OrgId() orgId: OrgId, @Param('jobId', jobIdParam) jobId: string) {
    return toMessageResponse(await this.log.get(orgId, jobId));
  }
}
