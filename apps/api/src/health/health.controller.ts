import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { pingRedis, REDIS, type RedisClient } from '@app/domain';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { Public } from '../http/decorators';
import { ApiEnvelope } from '../http/openapi-envelope';
import { HealthResponse, LivenessResponse, ProbeStatus } from './health.response';

async function probe(fn: () => Promise<unknown>, ms = 1500): Promise<ProbeStatus> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), ms);
  });
  try {
    await Promise.race([fn(), timeout]);
    return 'up';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(REDIS) private readonly redis: RedisClient,
  ) {}

  /** Liveness: the process answers; no dependency is consulted. */
  @Public()
  @Get('live')
  @ApiEnvelope(LivenessResponse)
  live(): LivenessResponse {
    return { status: 'ok' };
  }

  /** Readiness: database and Redis status; 503 when either is down. */
  @Public()
  @Get()
  @ApiEnvelope(HealthResponse, { description: 'Database and Redis are up' })
  @ApiEnvelope(HealthResponse, { status: 503, description: 'Database or Redis is down' })
  async health(@Res({ passthrough: true }) res: Response): Promise<HealthResponse> {
    const [database, redis] = await Promise.all([
      probe(() => this.ds.query('SELECT 1')),
      probe(() => pingRedis(this.redis)),
    ]);
    const ok = database === 'up' && redis === 'up';
    res.status(ok ? 200 : 503);
    return { status: ok ? 'ok' : 'degraded', database, redis };
  }
}
