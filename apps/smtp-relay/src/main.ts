// Starts the SMTP relay process.
import { NestFactory } from '@nestjs/core';
import { JsonLogger, loadConfigOrExit } from '@app/domain';
import { SmtpRelayModule } from './smtp-relay.module';
import { InboundSmtpService } from './inbound/inbound-smtp.service';
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
      inboundPort: app.get(InboundSmtpService).port,
      starttls: relay.selfSignedTls ? 'self-signed certificate' : 'configured certificate',
    },
    'bootstrap',
  );
}

void bootstrap();
