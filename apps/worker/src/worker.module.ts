// The worker transport: Bull processors and schedulers over libs/domain, plus a health endpoint.
import { Module } from '@nestjs/common';
import {
  AppConfigModule,
  ContactsModule,
  DatabaseModule,
  ImportsModule,
  LimitsModule,
  QueuesModule,
  RedisModule,
} from '@app/domain';
import { CampaignsWorkerModule } from './campaigns/campaigns-worker.module';
import { WorkerHealthController } from './health.controller';
import { WebhooksWorkerModule } from './webhooks/webhooks-worker.module';
import { WorkerMessagingModule } from './messaging/worker-messaging.module';
import { ImportsHousekeeping } from './imports/imports-housekeeping';
import { ImportsProcessor } from './imports/imports.processor';
import { ImportsSweeper } from './imports/imports.sweeper';

@Module({
  imports: [
    AppConfigModule,
    DatabaseModule.forRoot({ migrate: false }),
    RedisModule,
    QueuesModule,
    LimitsModule,
    WebhooksWorkerModule,
    WorkerMessagingModule,
    CampaignsWorkerModule,
    ImportsModule,
    ContactsModule,
  ],
  controllers: [WorkerHealthController],
  providers: [ImportsProcessor, ImportsSweeper, ImportsHousekeeping],
})
export class WorkerModule {}
