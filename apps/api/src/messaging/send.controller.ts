// HTTP transport of the send API: POST /api/v1/send.
import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { SendService } from '@app/domain';
import { OrgId, RequireScopes, ResponseMessage } from '../http/decorators';
import { SendEmailDto } from './send.dto';
import { CountsAuthFailures } from './send-ip-limits';

@ApiTags('send')
@Controller('api/v1/send')
export class SendController {
  constructor(private readonly sender: SendService) {}

  /** Accepts an email for delivery: 202 with the job id; delivery happens in the worker. */
  @Post()
  @HttpCode(202)
  @RequireScopes('messages:send')
  @CountsAuthFailures()
  @ResponseMessage('Email queued for delivery')
  send(@OrgId() orgId: string, @Body() dto: SendEmailDto) {
    return this.sender.send(orgId, dto);
  }
}
