// The inbound port (§14, §16, INBOUND_SMTP_PORT): receives bounces, feedback-loop reports and
// mailto unsubscribes from other mail servers. No AUTH, so every client is a stranger and the port
// is bounded: a recipient must be one of our addresses with a token we signed (or a role box), at a
// return host (`550 5.1.1` otherwise: the port relays nothing); each client address holds a few
// connections and delivers a few messages a minute, counted in Redis across replicas; each message
// is kept up to INBOUND_MAX_BYTES and stored once, whatever its recipient count. After DATA the
// message is committed to PostgreSQL, then `250`; the worker processes it.
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import {
  APP_CONFIG,
  ConnectionLease,
  InboundIntake,
  IpConnectionLimiter,
  IpPolicy,
  IpRequestLimiter,
  parseInboundAddress,
  relayTlsMaterial,
} from '@app/domain';
import type { AppConfig } from '@app/domain';
import { SMTPServer, SMTPServerDataStream, SMTPServerSession } from 'smtp-server';
import { readMessage } from '../message-intake';
import { MAX_MESSAGE_BYTES, smtpError } from '../smtp-relay.service';

/** Our addresses in one transaction (a report goes to one). */
export const MAX_INBOUND_RECIPIENTS = 10;
/**
 * Sessions at once, over every client: each holds at most INBOUND_MAX_BYTES while it is received
 * and committed. One client address holds at most INBOUND_CONNECTIONS_PER_IP of them.
 */
export const MAX_INBOUND_CLIENTS = 50;

/** What a stranger is told when over a bound (§16). */
export const TOO_MANY_CONNECTIONS = '4.7.0 Too many connections from your address';
export const TOO_MANY_MESSAGES = '4.7.1 Too many messages, try again later';

@Injectable()
export class InboundSmtpService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(InboundSmtpService.name);
  private server?: SMTPServer;
  /** Each open connection's lease, by its SMTP connection id. */
  private readonly leases = new Map<string, ConnectionLease>();
  /** Sessions whose lease is being taken, and those of them that closed meanwhile. */
  private readonly connecting = new Set<string>();
  private readonly closedWhileConnecting = new Set<string>();
  /** Counters of this deployment (its Redis prefix), so that two sharing a Redis stay apart. */
  private readonly scope: string;
  private readonly messagePolicy: IpPolicy;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly intake: InboundIntake,
    private readonly connections: IpConnectionLimiter,
    private readonly requests: IpRequestLimiter,
  ) {
    this.scope = `${config.bullPrefix}:inbound`;
    this.messagePolicy = {
      name: `${this.scope}:messages`,
      limit: config.inbound.messagesPerIpPerMinute,
      windowSeconds: 60,
    };
  }

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
      // The ceiling a client may declare or send, as on the relay; between INBOUND_MAX_BYTES and
      // this the head of the message is kept and the rest read and dropped.
      size: Math.max(MAX_MESSAGE_BYTES, this.config.inbound.maxBytes),
      maxClients: MAX_INBOUND_CLIENTS,
      disableReverseLookup: true,
      authOptional: true,
      disabledCommands: ['AUTH'],
      hideSTARTTLS: !tls,
      key: tls?.key,
      cert: tls?.cert,
      logger: false,
      closeTimeout: 10_000,
      onConnect: (session, cb) =>
        void this.onConnect(session).then(
          () => cb(),
          (err: Error) => cb(err),
        ),
      onClose: (session) => this.onClose(session),
      onMailFrom: (_address, session, cb) =>
        void this.onMailFrom(session).then(
          () => cb(),
          (err: Error) => cb(err),
        ),
      onRcptTo: (address, session, cb) =>
        void this.onRcptTo(address.address, session).then(
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

  /** At most INBOUND_CONNECTIONS_PER_IP sessions of one client address at once, across replicas. */
  private async onConnect(session: SMTPServerSession): Promise<void> {
    let lease: ConnectionLease | null;
    let closed = false;
    this.connecting.add(session.id);
    try {
      lease = await this.connections.acquire(
        this.scope,
        session.remoteAddress,
        this.config.inbound.connectionsPerIp,
      );
    } catch (err) {
      // Fail open: an outage of the counters must not stop bounces (MAX_INBOUND_CLIENTS still holds).
      this.logger.warn({
        msg: 'inbound connection limit unavailable',
        err: (err as Error).message,
      });
      return;
    } finally {
      this.connecting.delete(session.id);
      closed = this.closedWhileConnecting.delete(session.id);
    }
    if (closed) {
      if (lease) await this.connections.release(lease);
      return;
    }
    if (!lease) {
      this.logger.log({ msg: 'inbound connection refused: too many from one address' });
      throw smtpError(421, TOO_MANY_CONNECTIONS);
    }
    this.leases.set(session.id, lease);
  }

  private onClose(session: SMTPServerSession): void {
    const lease = this.leases.get(session.id);
    if (!lease) {
      // The client left while its lease was being taken: onConnect gives it back.
      if (this.connecting.has(session.id)) this.closedWhileConnecting.add(session.id);
      return;
    }
    this.leases.delete(session.id);
    void this.connections
      .release(lease)
      .catch((err: Error) =>
        this.logger.warn({ msg: 'inbound connection lease not released', err: err.message }),
      );
  }

  /**
   * At most INBOUND_MESSAGES_PER_IP_PER_MINUTE transactions per client address, counted at MAIL
   * FROM so that a client over the limit is told before it sends a byte of the message.
   */
  private async onMailFrom(session: SMTPServerSession): Promise<void> {
    const [state] = await this.requests
      .hit(session.remoteAddress, [this.messagePolicy])
      .catch((err: Error) => {
        this.logger.warn({ msg: 'inbound message limit unavailable', err: err.message });
        return [null];
      });
    if (state?.exceeded) {
      this.logger.log({ msg: 'inbound transaction refused: too many messages from one address' });
      throw smtpError(451, TOO_MANY_MESSAGES);
    }
  }

  private async onRcptTo(address: string, session: SMTPServerSession): Promise<void> {
    if (session.envelope.rcptTo.length >= MAX_INBOUND_RECIPIENTS) {
      throw smtpError(452, `4.5.3 Too many recipients: at most ${MAX_INBOUND_RECIPIENTS}`);
    }
    const kind = await this.intake.recipientKind(address).catch((err: Error) => {
      this.logger.warn({ msg: 'inbound recipient not checked', err: err.message });
      throw smtpError(451, '4.3.0 Temporary failure, please try again later');
    });
    if (!kind) throw smtpError(550, '5.1.1 No such recipient here');
  }

  private async onData(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<string> {
    const maxBytes = this.config.inbound.maxBytes;
    const intake = await readMessage(stream, maxBytes, { overLimit: 'keepHead' });
    if ('refused' in intake) throw smtpError(552, '5.3.4 Message header too large');
    // Over the port's ceiling smtp-server answers 552 itself, whatever this answers: keep nothing.
    if (stream.sizeExceeded) {
      this.logger.log({
        msg: 'inbound mail refused: over the size ceiling',
        bytes: intake.received,
      });
      throw smtpError(552, '5.3.4 Message too big');
    }
    // Each was accepted at RCPT TO, so each parses; a client may name one twice.
    const addresses = [...new Set(session.envelope.rcptTo.map((r) => r.address))];
    const kinds = addresses.map((a) => parseInboundAddress(a)!.kind);
    try {
      const id = await this.intake.accept({
        kind: kinds.find((k) => k !== 'operator') ?? 'operator',
        recipients: addresses,
        raw: intake.raw,
        remoteIp: session.remoteAddress ?? null,
      });
      this.logger.log({
        msg: id ? 'inbound mail accepted' : 'inbound mail accepted: a replay, not stored again',
        id,
        kinds,
        bytes: intake.raw.length,
        ...(intake.received > intake.raw.length && {
          truncated: true,
          receivedBytes: intake.received,
        }),
      });
      return 'OK';
    } catch (err) {
      this.logger.warn({ msg: 'inbound mail not stored', err: (err as Error).message });
      throw smtpError(451, '4.3.0 Temporary failure, please try again later');
    }
  }
}
