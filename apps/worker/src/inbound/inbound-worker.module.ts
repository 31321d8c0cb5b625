// Worker transport of inbound mail: the processing job and its timers.
import { Module } from '@nestjs/common';
import { InboundModule } from '@app/domain';
import { InboundPurge } from './inbound-purge';
import { InboundWorker } from './inbound.worker';

@Module({
  imports: [InboundModule],
  providers: [InboundWorker, InboundPurge],
})
export class InboundWorkerModule {}
