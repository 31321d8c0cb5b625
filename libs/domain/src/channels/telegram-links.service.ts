// The deep link of a contact's Telegram record (§17): `https://t.me/<bot>?start=<token>`. A bot
// can only write to someone who wrote to it first; opening the link sends the bot `/start <token>`,
// whose update links that chat to the record (ChannelCallbackService). Until then the record has
// no chat and campaigns count the contact unreachable on Telegram.
import { Injectable } from '@nestjs/common';
import type { OrgId } from '../common/org-id';
import { ContactChannelsService } from '../contacts/contact-channels.service';
import { ProviderAccounts } from './provider-accounts';
import { telegramDeepLink } from './providers/telegram-bot.adapter';
import { TelegramLinkTokens } from './telegram-link-token';

export interface TelegramLink {
  /** The link to give the contact. */
  url: string;
  /** The provider account whose bot the link opens. */
  providerId: string;
  botUsername: string;
}

@Injectable()
export class TelegramLinks {
  constructor(
    private readonly records: ContactChannelsService,
    private readonly accounts: ProviderAccounts,
    private readonly tokens: TelegramLinkTokens,
  ) {}

  /** 404 when the record is not the contact's; 422 `providerId` when no bot is connected. */
  async link(
    organizationId: OrgId,
    contactId: string,
    recordId: string,
    providerId?: string,
  ): Promise<TelegramLink> {
    const record = await this.records.get(organizationId, contactId, 'telegram', recordId);
    const account = await this.accounts.choose(organizationId, 'telegram', providerId);
    const botUsername = String(account.settings.botUsername);
    const token = this.tokens.sign(record.id, account.id);
    return {
      url: telegramDeepLink(botUsername, token),
      providerId: account.id,
      botUsername,
    };
  }
}
