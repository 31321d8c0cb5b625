// HTTP transport of the provider accounts (§17).
import { Module } from '@nestjs/common';
import { ChannelsModule } from '@app/domain';
import { ChannelProvidersController } from './channel-providers.controller';

@Module({
  imports: [ChannelsModule],
  controllers: [ChannelProvidersController],
})
export class ChannelsHttpModule {}
