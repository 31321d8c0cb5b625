// HTTP transport of sending domains.
import { Module } from '@nestjs/common';
import { SendingDomainsModule } from '@app/domain';
import { SendingDomainsController } from './sending-domains.controller';

@Module({
  imports: [SendingDomainsModule],
  controllers: [SendingDomainsController],
})
export class SendingDomainsHttpModule {}
