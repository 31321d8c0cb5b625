// The SMTP edge: accepts, authenticates, persists and enqueues; the worker delivers (§9).
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { APP_CONFIG } from '@app/domain';
import type { AppConfig } from '@app/domain';
import { SMTPServer } from 'smtp-server';

@Injectable()
export class SmtpRelayService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SmtpRelayService.name);
  private server?: SMTPServer;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  async onApplicationBootstrap(): Promise<void> {
    this.server = new SMTPServer({
      name: 'messaging-relay',
      banner: 'Messaging platform relay',
      size: 25 * 1024 * 1024,
      disableReverseLookup: true,
      authOptional: false,
      authMethods: ['PLAIN', 'LOGIN'],
      allowInsecureAuth: this.config.smtpAllowInsecureAuth,
      hideSTARTTLS: true,
      logger: false,
      onAuth: (_auth, _session, cb) => cb(new Error('Authentication is not available yet')),
    });
    this.server.on('error', (err) =>
      this.logger.error({ msg: 'smtp server error', err: err.message }),
    );
    await new Promise<void>((resolve) => this.server!.listen(this.config.smtpPort, resolve));
    this.logger.log({ msg: 'smtp relay listening', port: this.config.smtpPort });
  }

  async onApplicationShutdown(): Promise<void> {
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }
}
