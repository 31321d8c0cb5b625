// The worker transport: Bull processors and schedulers over libs/domain, plus a health endpoint.
import { Module } from '@nestjs/common';
import {
  AppConfigModule,
  ContactsModule,
  DatabaseModule,
  ImportsModule,
  LimitsModule,
  PeriodicModule,
  QueuesModule,
  RedisModule,
} from '@app/domain';
import { CampaignsWorkerModule } from './campaigns/campaigns-worker.module';
import { InboundWorkerModule } from './inbound/inbound-worker.module';
import { WorkerHealthController } from './health.controller';
import { WebhooksWorkerModule } from './webhooks/webhooks-worker.module';
import { WorkerMessagingModule } from './messaging/worker-messaging.module';
import { ImportsHousekeeping } from './imports/imports-housekeeping';
import { ImportsProcessor } from './imports/imports.processor';
import { ImportsSweepScheduler } from './imports/imports-sweep.scheduler';
import { SendingDomainsWorkerModule } from './sending-domains/sending-domains-worker.module';

@Module({
  imports: [
    AppConfigModule,
    DatabaseModule.forRoot({ migrate: false }),
    PeriodicModule,
    RedisModule,
    QueuesModule,
    LimitsModule,
    WebhooksWorkerModule,
    WorkerMessagingModule,
    CampaignsWorkerModule,
    InboundWorkerModule,
    ImportsModule,
    ContactsModule,
    SendingDomainsWorkerModule,
  ],
  controllers: [WorkerHealthController],
  providers: [ImportsProcessor, ImportsSweepScheduler, ImportsHousekeeping],
})
export class WorkerModule {}
