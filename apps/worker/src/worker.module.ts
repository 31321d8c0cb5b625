// The worker transport: Bull processors and schedulers over libs/domain, plus a health endpoint.
import { Module } from '@nestjs/common';
import {
  AppConfigModule,
  DatabaseModule,
  LimitsModule,
  QueuesModule,
  RedisModule,
} from '@app/domain';
import { CampaignsWorkerModule } from './campaigns/campaigns-worker.module';
import { WorkerHealthController } from './health.controller';
import { WebhooksWorkerModule } from './webhooks/webhooks-worker.module';
import { WorkerMessagingModule } from './messaging/worker-messaging.module';

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
  ],
  controllers: [WorkerHealthController],
})
export class WorkerModule {}
