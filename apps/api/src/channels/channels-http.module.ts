// HTTP transport of the provider accounts, of their providers' callbacks and of Telegram deep
// links (§17).
import { Module } from '@nestjs/common';
import { ChannelsModule, MessagingModule } from '@app/domain';
import { ChannelCallbacksController } from './channel-callbacks.controller';
import { ChannelProvidersController } from './channel-providers.controller';
import { TelegramLinksController } from './telegram-links.controller';

@Module({
  imports: [ChannelsModule, MessagingModule],
  controllers: [ChannelProvidersController, ChannelCallbacksController, TelegramLinksController],
})
export class ChannelsHttpModule {}
