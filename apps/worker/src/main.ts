// Entry point of the worker: processors and periodic tasks, health on WORKER_HEALTH_PORT.
import type { Server } from 'node:http';
import { NestFactory } from '@nestjs/core';
import { JsonLogger, loadConfigOrExit } from '@app/domain';
import { WorkerModule } from './worker.module';

async function bootstrap(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = new JsonLogger('worker', config.logLevel);
  const app = await NestFactory.create(WorkerModule, { logger });
  app.enableShutdownHooks();
  // The health server keeps connections like the api does (docs/http-edge.md).
  const server: Server = app.getHttpServer();
  server.keepAliveTimeout = config.http.keepAliveTimeoutMs;
  server.headersTimeout = config.http.headersTimeoutMs;
  await app.listen(config.workerHealthPort, '127.0.0.1');
  logger.log(
    {
      msg: 'worker ready',
      health: `http://127.0.0.1:${config.workerHealthPort}/health`,
      // Where mail goes: a smarthost (its host only, never its credentials) or recipients' MX.
      outbound: config.smtpOutboundUrl ? new URL(config.smtpOutboundUrl).host : 'recipient MX',
    },
    'bootstrap',
  );
}

void bootstrap();
