// The inbound port (§14, INBOUND_SMTP_PORT): receives bounces, feedback-loop reports and mailto
// unsubscribes from other mail servers. No AUTH: only our own addresses (`bounces+…@`,
// `unsubscribe+…@`, `fbl@` at a return host) are accepted, anything else is `550 5.1.1`, so the
// port relays nothing. After DATA the message is committed to PostgreSQL, then `250`; the worker
// processes it.
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import {
  APP_CONFIG,
  InboundIntake,
  parseInboundAddress,
  relayTlsMaterial,
  ReturnPath,
} from '@app/domain';
import type { AppConfig } from '@app/domain';
import type { Readable } from 'node:stream';
import { SMTPServer, SMTPServerAddress, SMTPServerSession } from 'smtp-server';
import { readMessage } from '../message-intake';
import { smtpError } from '../smtp-relay.service';

/** A report quotes at most the original message; anything larger is not one of them. */
export const MAX_INBOUND_BYTES = 10 * 1024 * 1024;
/** Our addresses in one transaction (a report goes to one). */
export const MAX_INBOUND_RECIPIENTS = 10;
/** Sessions at once: each may hold one message of MAX_INBOUND_BYTES while it is committed. */
export const MAX_INBOUND_CLIENTS = 50;

@Injectable()
export class InboundSmtpService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(InboundSmtpService.name);
  private server?: SMTPServer;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly intake: InboundIntake,
    private readonly returnPath: ReturnPath,
  ) {}

  /** The port actually listened on (tests listen on 0). */
  get port(): number {
    const address = this.server?.server.address();
    return typeof address === 'object' && address ? address.port : 0;
  }

  async onApplicationBootstrap(): Promise<void> {
    const tls = await relayTlsMaterial(this.config);
    this.server = new SMTPServer({
      name: this.config.sendingDomains.bounceDomain,
      banner: 'Messaging platform inbound',
      size: MAX_INBOUND_BYTES,
      maxClients: MAX_INBOUND_CLIENTS,
      disableReverseLookup: true,
      authOptional: true,
      disabledCommands: ['AUTH'],
      hideSTARTTLS: !tls,
      key: tls?.key,
      cert: tls?.cert,
      logger: false,
      closeTimeout: 10_000,
      onRcptTo: (address, session, cb) =>
        void this.onRcptTo(address, session).then(
          () => cb(),
          (err: Error) => cb(err),
        ),
      onData: (stream, session, cb) =>
        void this.onData(stream, session).then(
          (reply) => cb(null, reply),
          (err: Error) => cb(err),
        ),
    });
    this.server.on('error', (err: Error & { remoteAddress?: string; code?: string }) => {
      if (err.remoteAddress !== undefined) {
        this.logger.warn({
          msg: 'inbound client connection error',
          code: err.code,
          err: err.message,
        });
      } else {
        this.logger.error({ msg: 'inbound smtp server error', err: err.message });
      }
    });
    await new Promise<void>((resolve) => this.server!.listen(this.config.inboundSmtpPort, resolve));
    this.logger.log({ msg: 'inbound smtp listening', port: this.port, starttls: Boolean(tls) });
  }

  async onApplicationShutdown(): Promise<void> {
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }

  private async onRcptTo(address: SMTPServerAddress, session: SMTPServerSession): Promise<void> {
    if (session.envelope.rcptTo.length >= MAX_INBOUND_RECIPIENTS) {
      throw smtpError(452, `4.5.3 Too many recipients: at most ${MAX_INBOUND_RECIPIENTS}`);
    }
    const parsed = parseInboundAddress(address.address);
    if (!parsed || !(await this.returnPath.isReturnHost(parsed.host))) {
      throw smtpError(550, '5.1.1 No such recipient here');
    }
  }

  private async onData(stream: Readable, session: SMTPServerSession): Promise<string> {
    const intake = await readMessage(stream, MAX_INBOUND_BYTES);
    if ('refused' in intake) {
      if (intake.refused === 'size') {
        throw smtpError(552, `Message exceeds fixed maximum message size ${MAX_INBOUND_BYTES}`);
      }
      throw smtpError(552, '5.3.4 Message header too large');
    }
    // Each was accepted at RCPT TO, so each parses.
    const recipients = session.envelope.rcptTo.map((r) => ({
      address: r.address,
      kind: parseInboundAddress(r.address)!.kind,
    }));
    try {
      const ids = await this.intake.accept({
        kind: recipients.find((r) => r.kind !== 'operator')?.kind ?? 'operator',
        recipients: recipients.map((r) => r.address),
        raw: intake.raw,
        remoteIp: session.remoteAddress ?? null,
      });
      this.logger.log({
        msg: 'inbound mail accepted',
        kinds: recipients.map((r) => r.kind),
        bytes: intake.raw.length,
        ids,
      });
      return 'OK';
    } catch (err) {
      this.logger.warn({ msg: 'inbound mail not stored', err: (err as Error).message });
      throw smtpError(451, '4.3.0 Temporary failure, please try again later');
    }
  }
}
