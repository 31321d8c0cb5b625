// The SMTP relay process: submission with AUTH by API key, STARTTLS always offered.
import { NestFactory } from '@nestjs/core';
import { JsonLogger, loadConfigOrExit } from '@app/domain';
import { SmtpRelayModule } from './smtp-relay.module';
import { SmtpRelayService } from './smtp-relay.service';

async function bootstrap(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = new JsonLogger('smtp-relay', config.logLevel);
  const app = await NestFactory.createApplicationContext(SmtpRelayModule, { logger });
  app.enableShutdownHooks();
  const relay = app.get(SmtpRelayService);
  logger.log(
    {
      msg: 'smtp-relay ready',
      port: relay.port,
      starttls: relay.selfSignedTls ? 'self-signed certificate' : 'configured certificate',
    },
    'bootstrap',
  );
}

void bootstrap();
