// Worker transport of inbound mail: the processing job and its timers.
import { Module } from '@nestjs/common';
import { InboundModule } from '@app/domain';
import { InboundWorker } from './inbound.worker';

@Module({
  imports: [InboundModule],
  providers: [InboundWorker],
})
export class InboundWorkerModule {}
