// POST /api/v1/send (§8), with the Idempotency-Key of §13.
import { Body, Controller, Headers, HttpCode, Post, Res } from '@nestjs/common';
import { ApiHeader, ApiTags } from '@nestjs/swagger';
import { IdempotencyService, SendService } from '@app/domain';
import type { Response } from 'express';
import { OrgId, RequireScopes, ResponseMessage } from '../http/decorators';
import { ApiEnvelope } from '../http/openapi-envelope';
import { SendEmailDto } from './send.dto';
import { SendEmailResponse, toSendEmailResponse } from './send.response';
import { CountsAuthFailures } from './send-ip-limits';

@ApiTags('send')
@Controller('api/v1/send')
export class SendController {
  constructor(
    private readonly sender: SendService,
    private readonly idempotency: IdempotencyService,
  ) {}

  /** Accepts an email for delivery: 202 with the job id; delivery happens in the worker. */
  @Post()
  @HttpCode(202)
  @RequireScopes('messages:send')
  @CountsAuthFailures()
  @ResponseMessage('Email queued for delivery')
  @ApiEnvelope(SendEmailResponse, { status: 202 })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      '1–255 printable ASCII characters. A repeat with the same body within 24 hours answers the ' +
      'first 202 with `Idempotent-Replayed: true` and sends nothing; another body is a 409.',
  })
  async send(
    @OrgId() orgId: OrgId,
    @Body() dto: SendEmailDto,
    @Headers('idempotency-key') key: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ) {
    const { response, replayed } = await this.idempotency.run(orgId, key, dto, async () =>
      toSendEmailResponse(await this.sender.send(orgId, dto)),
    );
    if (replayed) res.setHeader('Idempotent-Replayed', 'true');
    return response;
  }
}
