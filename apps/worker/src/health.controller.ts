import { Controller, Get, Inject, Res } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { pingRedis, REDIS, type RedisClient } from '@app/domain';
import type { Response } from 'express';
import { DataSource } from 'typeorm';

@Controller('health')
export class WorkerHealthController {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(REDIS) private readonly redis: RedisClient,
  ) {}

  @Get()
  async health(@Res({ passthrough: true }) res: Response) {
    const [database, redis] = await Promise.all([
      this.ds.query('SELECT 1').then(
        () => 'up',
        () => 'down',
      ),
      pingRedis(this.redis).then(
        () => 'up',
        () => 'down',
      ),
    ]);
    const ok = database === 'up' && redis === 'up';
    res.status(ok ? 200 : 503);
    return {
      success: ok,
      message: ok ? 'OK' : 'Degraded',
      data: { status: ok ? 'ok' : 'degraded', database, redis },
    };
  }
}
