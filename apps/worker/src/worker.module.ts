// The worker transport: Bull processors and schedulers over libs/domain, plus a health endpoint.
import { Module } from '@nestjs/common';
import {
  AppConfigModule,
  DatabaseModule,
  ImportsModule,
  LimitsModule,
  QueuesModule,
  RedisModule,
} from '@app/domain';
import { WorkerHealthController } from './health.controller';
import { ImportsProcessor } from './imports/imports.processor';
import { ImportsSweeper } from './imports/imports.sweeper';

@Module({
  imports: [
    AppConfigModule,
    DatabaseModule.forRoot({ migrate: false }),
    RedisModule,
    QueuesModule,
    LimitsModule,
    ImportsModule,
  ],
  controllers: [WorkerHealthController],
  providers: [ImportsProcessor, ImportsSweeper],
})
export class WorkerModule {}
