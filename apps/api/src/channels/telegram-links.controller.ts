// POST /contacts/{contactId}/telegram/{channelId}/link (§17): the deep link of a contact's Telegram
// record, which the contact opens to let the organization's bot write to it.
import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsOptional, IsUUID } from 'class-validator';
import { TelegramLinks } from '@app/domain';
import { OrgId, RequireScopes, ResponseMessage } from '../http/decorators';
import { ApiEnvelope } from '../http/openapi-envelope';
import { uuidParam } from '../http/params';
import { TelegramLinkResponse, toTelegramLinkResponse } from './telegram-link.response';

export class TelegramLinkRequestDto {
  /** The bot's provider account; the organization's default Telegram provider when absent. */
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  providerId?: string;
}

@ApiTags('contacts')
@Controller('api/v1/user/contacts/:contactId/telegram/:channelId')
export class TelegramLinksController {
  constructor(private readonly links: TelegramLinks) {}

  /** The link the contact opens; the bot's update then links that chat to this record. */
  @Post('link')
  @HttpCode(200)
  @RequireScopes('contacts:write')
  @ResponseMessage('Telegram link created successfully')
  @ApiEnvelope(TelegramLinkResponse)
  async link(
    @OrgId() orgId: OrgId,
    @Param('contactId', uuidParam) contactId: string,
    @Param('channelId', uuidParam) channelId: string,
    @Body() dto: TelegramLinkRequestDto,
  ): Promise<TelegramLinkResponse> {
    return toTelegramLinkResponse(
      await this.links.link(orgId, contactId, channelId, dto.providerId),
    );
  }
}
