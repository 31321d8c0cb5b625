// The shared ioredis connection for rate-limit counters and pub/sub (Bull opens its own).
import { DynamicModule, Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';

export const REDIS = Symbol('REDIS');

export function createRedis(url: string, opts: { autoPipelining?: boolean } = {}): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    connectTimeout: 2000,
    lazyConnect: false,
    enableAutoPipelining: opts.autoPipelining ?? false,
  });
}

function redisProvider(autoPipelining: boolean) {
  return {
    provide: REDIS,
    inject: [APP_CONFIG],
    useFactory: (c: AppConfig) => createRedis(c.redisUrl, { autoPipelining }),
  };
}

@Global()
@Module({ providers: [redisProvider(false)], exports: [REDIS] })
export class RedisModule implements OnApplicationShutdown {
  /**
   * The same client with ioredis auto-pipelining: the commands issued in one event-loop turn go
   * to Redis in one write (one pipeline), each still with its own reply. For the SMTP relay,
   * whose connections' MAIL FROM limit checks arrive together (see docs/smtp-relay.md).
   */
  static withAutoPipelining(): DynamicModule {
    return { module: RedisModule, providers: [redisProvider(true)], exports: [REDIS] };
  }

  constructor(@Inject(REDIS) private readonly redis: Redis) {}
  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
