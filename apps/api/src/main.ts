// Entry point of the api: one process, or a node:cluster primary over API_PROCESSES.
import cluster from 'node:cluster';
import { NestFactory } from '@nestjs/core';
import { AppConfig, JsonLogger, loadConfigOrExit } from '@app/domain';
import { ApiModule } from './api.module';
import { configureApp } from './configure-app';

async function bootstrap(config: AppConfig): Promise<void> {
  const logger = new JsonLogger('api', config.logLevel);
  const app = await NestFactory.create(ApiModule, { bodyParser: false, logger });
  configureApp(app, config);
  await app.listen(config.port);
  // Under a primary, the primary says "ready" once every process listens.
  const line = { port: config.port, pid: process.pid, url: `http://localhost:${config.port}` };
  if (cluster.isPrimary) logger.log({ msg: 'api ready', ...line }, 'bootstrap');
  else logger.debug({ msg: 'api process listening', ...line }, 'bootstrap');
}

/**
 * API_PROCESSES > 1: this process only supervises; node:cluster forks that many api processes
 * that share the listening port (connections are distributed round-robin by the primary). A
 * process that dies is replaced after a short delay; SIGTERM / SIGINT are passed on and the
 * primary exits once every process has finished its graceful shutdown. Migrations need no
 * coordination: every process runs them under the same advisory lock.
 */
function supervise(config: AppConfig): void {
  const logger = new JsonLogger('api-primary', config.logLevel);
  let stopping = false;
  let alive = 0;
  let listening = 0;
  cluster.on('listening', () => {
    if (++listening !== config.apiProcesses) return;
    logger.log({
      msg: 'api ready',
      port: config.port,
      processes: config.apiProcesses,
      url: `http://localhost:${config.port}`,
    });
  });
  const fork = () => {
    const worker = cluster.fork();
    alive++;
    worker.on('exit', (code, signal) => {
      alive--;
      if (stopping) {
        if (alive === 0) process.exit(0);
        return;
      }
      logger.warn({
        msg: 'api process exited, replacing it',
        pid: worker.process.pid,
        code,
        signal,
      });
      setTimeout(fork, 1000).unref();
    });
  };
  for (let i = 0; i < config.apiProcesses; i++) fork();
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.log({ msg: 'stopping api processes', signal });
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    if (alive === 0) process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  logger.debug({ msg: 'api primary started', processes: config.apiProcesses, port: config.port });
}

const config = loadConfigOrExit();
if (config.apiProcesses > 1 && cluster.isPrimary) supervise(config);
else void bootstrap(config);
