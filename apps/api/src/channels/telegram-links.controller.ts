// POST /contacts/{contactId}/telegram/{channelId}/link (§17): the deep link of a contact's Telegram
// record, which the contact opens to let the organization's bot write to it.
import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsOptional, IsUUID } from 'class-validator';
import { TelegramLinks } from '@app/domain';
import { OrgId, RequireScopes, ResponseMessage } from '../http/decorators';
import { ApiEnvelope } from '../http/openapi-envelope';
import { uuidParam } from '../http/params';

export class TelegramLinkRequestDto {
  /** The bot's provider account; the organization's default Telegram provider when absent. */
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  providerId?: string;
}

export class TelegramLinkDto {
  @ApiProperty({ example: 'https://t.me/acme_bot?start=q3X…' })
  url: string;

  @ApiProperty({ format: 'uuid' })
  providerId: string;

  @ApiProperty({ example: 'acme_bot' })
  botUsername: string;
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
  @ApiEnvelope(TelegramLinkDto)
  async link(
    @OrgId() orgId: OrgId,
    @Param('contactId', uuidParam) contactId: string,
    @Param('channelId', uuidParam) channelId: string,
    @Body() dto: TelegramLinkRequestDto,
  ): Promise<TelegramLinkDto> {
    return this.links.link(orgId, contactId, channelId, dto.providerId);
  }
}
