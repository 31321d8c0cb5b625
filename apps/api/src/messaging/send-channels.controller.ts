// POST /api/v1/send/{sms,whatsapp,telegram,imessage,push} (§17), with the Idempotency-Key of the
// send API.
import { Body, Controller, Headers, HttpCode, Post, Res } from '@nestjs/common';
import { ApiHeader, ApiTags } from '@nestjs/swagger';
import { ChannelSendService, IdempotencyService } from '@app/domain';
import type { ChannelSendResult } from '@app/domain';
import type { Response } from 'express';
import { OrgId, RequireScopes, ResponseMessage } from '../http/decorators';
import { ApiEnvelope } from '../http/openapi-envelope';
import {
  SendImessageDto,
  SendPushDto,
  SendSmsDto,
  SendTelegramDto,
  SendWhatsappDto,
} from './send-channels.dto';
import { ChannelSendResponse, toChannelSendResponse } from './channel-send.response';
import { CountsAuthFailures } from './send-ip-limits';

const IDEMPOTENCY_HEADER = {
  name: 'Idempotency-Key',
  required: false,
  description:
    '1–255 printable ASCII characters. A repeat with the same body within 24 hours answers the ' +
    'first 202 with `Idempotent-Replayed: true` and sends nothing; another body is a 409.',
};

@ApiTags('send')
@Controller('api/v1/send')
export class SendChannelsController {
  constructor(
    private readonly sender: ChannelSendService,
    private readonly idempotency: IdempotencyService,
  ) {}

  /** Accepts an SMS for delivery through the organization's SMS provider: 202 with the job id. */
  @Post('sms')
  @HttpCode(202)
  @RequireScopes('messages:send')
  @CountsAuthFailures()
  @ResponseMessage('SMS queued for delivery')
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiEnvelope(ChannelSendResponse, { status: 202 })
  async sms(
    @OrgId() orgId: OrgId,
    @Body() dto: SendSmsDto,
    @Headers('idempotency-key') key: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ) {
    return this.once(orgId, key, { channel: 'sms', ...dto }, res, () =>
      this.sender.sendSms(orgId, dto),
    );
  }

  /** Accepts a push notification for delivery through FCM or APNs: 202 with the job id. */
  @Post('push')
  @HttpCode(202)
  @RequireScopes('messages:send')
  @CountsAuthFailures()
  @ResponseMessage('Push notification queued for delivery')
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiEnvelope(ChannelSendResponse, { status: 202 })
  async push(
    @OrgId() orgId: OrgId,
    @Body() dto: SendPushDto,
    @Headers('idempotency-key') key: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ) {
    return this.once(orgId, key, { channel: 'push', ...dto }, res, () =>
      this.sender.sendPush(orgId, dto),
    );
  }

  /** Accepts a WhatsApp message (text, template or both) through the organization's provider. */
  @Post('whatsapp')
  @HttpCode(202)
  @RequireScopes('messages:send')
  @CountsAuthFailures()
  @ResponseMessage('WhatsApp message queued for delivery')
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiEnvelope(ChannelSendResponse, { status: 202 })
  async whatsapp(
    @OrgId() orgId: OrgId,
    @Body() dto: SendWhatsappDto,
    @Headers('idempotency-key') key: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ) {
    return this.once(orgId, key, { channel: 'whatsapp', ...dto }, res, () =>
      this.sender.sendWhatsapp(orgId, dto),
    );
  }

  /** Accepts a Telegram message to a linked chat through the organization's bot. */
  @Post('telegram')
  @HttpCode(202)
  @RequireScopes('messages:send')
  @CountsAuthFailures()
  @ResponseMessage('Telegram message queued for delivery')
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiEnvelope(ChannelSendResponse, { status: 202 })
  async telegram(
    @OrgId() orgId: OrgId,
    @Body() dto: SendTelegramDto,
    @Headers('idempotency-key') key: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ) {
    return this.once(orgId, key, { channel: 'telegram', ...dto }, res, () =>
      this.sender.sendTelegram(orgId, dto),
    );
  }

  /** Accepts an iMessage through the organization's iMessage provider. */
  @Post('imessage')
  @HttpCode(202)
  @RequireScopes('messages:send')
  @CountsAuthFailures()
  @ResponseMessage('iMessage queued for delivery')
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiEnvelope(ChannelSendResponse, { status: 202 })
  async imessage(
    @OrgId() orgId: OrgId,
    @Body() dto: SendImessageDto,
    @Headers('idempotency-key') key: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ) {
    return this.once(orgId, key, { channel: 'imessage', ...dto }, res, () =>
      this.sender.sendImessage(orgId, dto),
    );
  }

  /** The send, or the first answer to a repeat of its Idempotency-Key (the channel is hashed too). */
  private async once(
    orgId: OrgId,
    key: string | undefined,
    body: object,
    res: Response,
    send: () => Promise<ChannelSendResult>,
  ): Promise<ChannelSendResponse> {
    const { response, replayed } = await this.idempotency.run(orgId, key, body, async () =>
      toChannelSendResponse(await send()),
    );
    if (replayed) res.setHeader('Idempotent-Replayed', 'true');
    return response;
  }
}
