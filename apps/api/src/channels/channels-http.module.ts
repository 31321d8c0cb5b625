// HTTP transport of the provider accounts and of their providers' callbacks (§17).
import { Module } from '@nestjs/common';
import { ChannelsModule, MessagingModule } from '@app/domain';
import { ChannelCallbacksController } from './channel-callbacks.controller';
import { ChannelProvidersController } from './channel-providers.controller';

@Module({
  imports: [ChannelsModule, MessagingModule],
  controllers: [ChannelProvidersController, ChannelCallbacksController],
})
export class ChannelsHttpModule {}
