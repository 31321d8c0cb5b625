// The SMTP edge (§9, §16): authenticates by API key and re-checks it at every MAIL FROM, applies
// the organization limits there with the same domain function as the send API, and after DATA
// commits the raw message to PostgreSQL and queues it before answering `250 OK <jobId>`.
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import {
  APP_CONFIG,
  AuthFailureLimiter,
  CredentialService,
  DomainError,
  RateLimitedError,
  relayTlsMaterial,
  ResolvedKey,
  SenderNotVerifiedError,
  SendService,
  SubscriptionRequiredError,
} from '@app/domain';
import type { AppConfig, OrgId } from '@app/domain';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import { SMTPServer, SMTPServerAuthentication, SMTPServerSession } from 'smtp-server';
import { relayHeaders } from './log-headers';
import { readMessage } from './message-intake';

export const MAX_MESSAGE_BYTES = 25 * 1024 * 1024;
export const MAX_RECIPIENTS = 50;

interface RelayUser {
  organizationId: OrgId;
  keyId: string;
  /** The key as it stands now; its value stays in this closure, out of the session object. */
  current(): Promise<ResolvedKey | null>;
}

type SmtpError = Error & { responseCode: number };

export function smtpError(code: number, message: string): SmtpError {
  return Object.assign(new Error(message), { responseCode: code });
}

function isLoopback(address: string): boolean {
  const a = address.replace(/^::ffff:/, '');
  return a === '::1' || (isIP(a) === 4 && a.startsWith('127.'));
}

/** AUTH in the clear is refused unless the session is TLS, the client is loopback, or it is allowed. */
export function insecureAuthRefused(
  session: { secure: boolean; remoteAddress: string },
  allowInsecure: boolean,
): boolean {
  return !session.secure && !isLoopback(session.remoteAddress) && !allowInsecure;
}

/** The one mapping from domain errors to SMTP replies. */
export function smtpReplyFor(err: unknown): SmtpError {
  if (err instanceof RateLimitedError) return smtpError(451, err.message);
  if (err instanceof SubscriptionRequiredError) return smtpError(554, err.message);
  if (err instanceof SenderNotVerifiedError)
    return smtpError(550, '5.7.1 Sender domain is not verified');
  if (err instanceof DomainError && err.code === 'E_VALIDATION_ERROR')
    return smtpError(554, err.message);
  // Anything else is transient from the client's point of view: it keeps the message and retries.
  return smtpError(451, 'Temporary failure, please try again later');
}

/** A live key that may send: what AUTH requires, and MAIL FROM again. */
function sends(key: ResolvedKey | null): key is ResolvedKey {
  return key !== null && key.scopes.includes('messages:send');
}

@Injectable()
export class SmtpRelayService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SmtpRelayService.name);
  private server?: SMTPServer;
  /** Whether STARTTLS runs on the generated self-signed pair (no SMTP_TLS_CERT/KEY). */
  selfSignedTls = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly credentials: CredentialService,
    private readonly authFailures: AuthFailureLimiter,
    private readonly send: SendService,
  ) {}

  /** The port actually listened on (tests listen on 0). */
  get port(): number {
    const address = this.server?.server.address();
    return typeof address === 'object' && address ? address.port : 0;
  }

  async onApplicationBootstrap(): Promise<void> {
    const tls = await relayTlsMaterial(this.config);
    this.selfSignedTls = tls.selfSigned;
    if (tls.selfSigned && this.config.isProduction) {
      this.logger.warn({
        msg: 'SMTP_TLS_CERT and SMTP_TLS_KEY are unset: STARTTLS uses a self-signed certificate kept in DATA_DIR/smtp-tls; set a real certificate for clients that verify it',
      });
    }
    this.server = new SMTPServer({
      name: 'messaging-relay',
      banner: 'Messaging platform relay',
      size: MAX_MESSAGE_BYTES,
      disableReverseLookup: true,
      authMethods: ['PLAIN', 'LOGIN'],
      // Insecure AUTH is judged per connection in onAuth (loopback or SMTP_ALLOW_INSECURE_AUTH).
      allowInsecureAuth: true,
      key: tls.key,
      cert: tls.cert,
      logger: false,
      closeTimeout: 10_000,
      onConnect: (session, cb) => void this.onConnect(session).then(() => cb(), cb),
      onAuth: (auth, session, cb) =>
        void this.onAuth(auth, session).then(
          (user) => cb(null, { user }),
          (err: Error) => cb(err),
        ),
      onMailFrom: (_address, session, cb) => void this.onMailFrom(session).then(() => cb(), cb),
      onRcptTo: (_address, session, cb) =>
        cb(
          session.envelope.rcptTo.length >= MAX_RECIPIENTS
            ? smtpError(452, `Too many recipients: at most ${MAX_RECIPIENTS} per message`)
            : undefined,
        ),
      onData: (stream, session, cb) =>
        void this.onData(stream, session).then(
          (reply) => cb(null, reply),
          (err: Error) => cb(err),
        ),
    });
    this.server.on('error', (err: Error & { remoteAddress?: string; code?: string }) => {
      // smtp-server re-emits a client connection's errors (a TLS handshake of garbage, a reset in
      // mid-transaction) with the client's address: the client's fault, a warning. Errors of the
      // server itself (listening) stay errors.
      if (err.remoteAddress !== undefined) {
        this.logger.warn({ msg: 'smtp client connection error', code: err.code, err: err.message });
      } else {
        this.logger.error({ msg: 'smtp server error', err: err.message });
      }
    });
    await new Promise<void>((resolve) => this.server!.listen(this.config.smtpPort, resolve));
    this.logger.debug({ msg: 'smtp relay listening', port: this.port });
  }

  /** Stops accepting, lets open transactions finish (up to closeTimeout), then resolves. */
  async onApplicationShutdown(): Promise<void> {
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }

  private async onConnect(session: SMTPServerSession): Promise<void> {
    const state = await this.authFailures.state(session.remoteAddress).catch(() => null);
    if (state?.blocked) throw smtpError(421, AuthFailureLimiter.error(state).message);
  }

  private async onAuth(
    auth: SMTPServerAuthentication,
    session: SMTPServerSession,
  ): Promise<RelayUser> {
    if (insecureAuthRefused(session, this.config.smtpAllowInsecureAuth)) {
      throw smtpError(538, 'Must issue a STARTTLS command first');
    }
    const value = auth.password ?? '';
    const key = await this.credentials.liveKey(value);
    if (sends(key)) {
      return {
        organizationId: key.organizationId,
        keyId: key.id,
        current: () => this.credentials.liveKey(value),
      };
    }
    // The same counter, window and message as the send API's failed authentications (§8, §9).
    const state = await this.authFailures.recordFailure(session.remoteAddress);
    this.logger.warn({ msg: 'smtp authentication failed', failures: state.failures });
    if (state.blocked) throw smtpError(421, AuthFailureLimiter.error(state).message);
    throw smtpError(535, 'Authentication credentials invalid');
  }

  private async onMailFrom(session: SMTPServerSession): Promise<void> {
    const user = session.user as RelayUser | undefined;
    if (!user) throw smtpError(530, 'Authentication required');
    // A session outlives its AUTH: a key revoked or expired since then stops here (§16).
    const key = await user.current().catch((err: unknown) => {
      throw smtpReplyFor(err);
    });
    if (!sends(key)) {
      // Without a user smtp-server answers MAIL FROM with 530 and accepts a new AUTH.
      session.user = undefined;
      this.logger.warn({
        msg: 'smtp key no longer valid in an open session',
        organizationId: user.organizationId,
        keyId: user.keyId,
      });
      throw smtpError(535, '5.7.8 Authentication credentials invalid');
    }
    try {
      await this.send.admitRelayTransaction(user.organizationId);
    } catch (err) {
      throw smtpReplyFor(err);
    }
  }

  private async onData(stream: Readable, session: SMTPServerSession): Promise<string> {
    const user = session.user as RelayUser;
    const intake = await readMessage(stream, MAX_MESSAGE_BYTES);
    if ('refused' in intake) {
      this.logger.log({
        msg: 'smtp message refused',
        reason: intake.refused,
        organizationId: user.organizationId,
      });
      // smtp-server replies to an oversized message itself, with the same 552.
      if (intake.refused === 'size')
        throw smtpError(552, `Message exceeds fixed maximum message size ${MAX_MESSAGE_BYTES}`);
      throw smtpError(552, '5.3.4 Message header too large');
    }
    const { raw } = intake;
    // The header block, not the whole MIME tree: the one author the policy checks and the worker
    // signs for, and the Subject for the log.
    const headers = relayHeaders(raw);
    if ('refused' in headers) {
      this.logger.log({
        msg: 'smtp message refused',
        reason: headers.refused,
        organizationId: user.organizationId,
      });
      throw smtpError(550, `5.7.1 ${headers.refused}`);
    }
    try {
      const envelopeFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
      const result = await this.send.submitRaw(user.organizationId, {
        raw,
        envelopeFrom,
        recipients: session.envelope.rcptTo.map((r) => r.address),
        from: headers.from,
        subject: headers.subject,
      });
      this.logger.log({
        msg: 'smtp message accepted',
        organizationId: user.organizationId,
        jobId: result.jobId,
        bytes: raw.length,
        recipients: result.recipients.length,
      });
      return `OK ${result.jobId}`;
    } catch (err) {
      this.logger.warn({ msg: 'smtp message not accepted', err: (err as Error).message });
      throw smtpReplyFor(err);
    }
  }
}
