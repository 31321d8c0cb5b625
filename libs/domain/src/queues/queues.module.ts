// Bull on Redis, shared by the api (producers) and the worker (processors).
import { BullModule } from '@nestjs/bull';
import { Global, Module, OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { bullQueuePrefix } from '../redis/redis-client';
import { BullConnections } from './bull-connections';
import { QUEUES } from './jobs';

@Module({
  providers: [
    {
      provide: BullConnections,
      inject: [APP_CONFIG],
      useFactory: (c: AppConfig) => new BullConnections(c.redisUrl),
    },
  ],
  exports: [BullConnections],
})
class BullConnectionsModule {}

@Global()
@Module({
  imports: [
    BullConnectionsModule,
    BullModule.forRootAsync({
      imports: [BullConnectionsModule],
      inject: [BullConnections],
      useFactory: (connections: BullConnections) => ({
        createClient: connections.create,
        defaultJobOptions: { removeOnComplete: 1000, removeOnFail: 5000 },
      }),
    }),
    BullModule.registerQueueAsync(
      ...Object.values(QUEUES).map((name) => ({
        name,
        inject: [APP_CONFIG],
        useFactory: (c: AppConfig) => ({
          prefix: bullQueuePrefix(c, name),
          // Bull renews a running job's lock every half of it; the stalled-job check takes a dead
          // worker's jobs back at the same period.
          settings: { lockDuration: c.jobLockMs, stalledInterval: c.jobLockMs },
        }),
      })),
    ),
  ],
  exports: [BullModule],
})
export class QueuesModule implements OnApplicationShutdown {
  constructor(private readonly connections: BullConnections) {}

  // A global module's hooks run after those of the queues' module, so every queue has closed.
  async onApplicationShutdown(): Promise<void> {
    await this.connections.close();
  }
}
