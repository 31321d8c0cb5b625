// The worker transport: Bull processors and schedulers over libs/domain, plus a health endpoint.
import { Module } from '@nestjs/common';
import {
  AppConfigModule,
  DatabaseModule,
  LimitsModule,
  QueuesModule,
  RedisModule,
} from '@app/domain';
import { WorkerHealthController } from './health.controller';
import { WorkerMessagingModule } from './messaging/worker-messaging.module';

@Module({
  imports: [
    AppConfigModule,
    DatabaseModule.forRoot({ migrate: false }),
    RedisModule,
    QueuesModule,
    LimitsModule,
    WorkerMessagingModule,
  ],
  controllers: [WorkerHealthController],
})
export class WorkerModule {}
