// Starts the SMTP relay process.
import { NestFactory } from '@nestjs/core';
import { JsonLogger, loadConfigOrExit } from '@app/domain';
import { SmtpRelayModule } from './smtp-relay.module';

async function bootstrap(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = new JsonLogger('smtp-relay', config.logLevel);
  const app = await NestFactory.createApplicationContext(SmtpRelayModule, { logger });
  app.enableShutdownHooks();
}

void bootstrap();
