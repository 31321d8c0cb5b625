// Response shape of POST /contacts/{contactId}/telegram/{channelId}/link (§17).
import { ApiProperty } from '@nestjs/swagger';
import type { TelegramLink } from '@app/domain';

/** The deep link a contact opens to let the organization's bot write to it. */
export class TelegramLinkResponse {
  @ApiProperty({ example: 'https://t.me/acme_bot?start=q3X…' })
  url: string;

  /** The provider account whose bot the link opens. */
  @ApiProperty({ format: 'uuid' })
  providerId: string;

  @ApiProperty({ example: 'acme_bot' })
  botUsername: string;
}

export function toTelegramLinkResponse(l: TelegramLink): TelegramLinkResponse {
  return { url: l.url, providerId: l.providerId, botUsername: l.botUsername };
}
