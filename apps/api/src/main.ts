import { NestFactory } from '@nestjs/core';
import { JsonLogger, loadConfigOrExit } from '@app/domain';
import { ApiModule } from './api.module';
import { configureApp } from './configure-app';

async function bootstrap(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = new JsonLogger('api', config.logLevel);
  const app = await NestFactory.create(ApiModule, { bodyParser: false, logger });
  configureApp(app, config);
  await app.listen(config.port);
  logger.log({ msg: 'api listening', port: config.port }, 'bootstrap');
}

void bootstrap();
