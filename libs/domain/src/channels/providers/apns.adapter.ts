// Push through Apple Push Notification service (§17): the provider API over HTTP/2 with an ES256
// provider token. Apple asks providers to keep their connections open rather than connect per
// notification, so each origin and signing key has one long-lived HTTP/2 session, opened to the
// address ProviderHttp checked (SSRF rule) and reused by every send until APNs or we close it.
import { Injectable, OnModuleDestroy, Optional } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { ClientHttp2Session, connect as connectHttp2, constants as h2 } from 'node:http2';
import { isIP } from 'node:net';
import { connect as connectTls, rootCertificates, TLSSocket } from 'node:tls';
import { Clock, SystemClock } from '../../common/clock';
import { bareHost } from '../../dns/target';
import { describeFailure } from '../../webhooks/webhook-http.client';
import type {
  ProviderAccount,
  ProviderAdapter,
  ProviderMessage,
  PushContent,
  SendOutcome,
} from '../provider-adapter';
import { ProviderHttp } from '../provider-http';
import { ApnsKeyError, signApnsProviderToken } from './apns-jwt';

export const APNS_PRODUCTION_URL = 'https://api.push.apple.com';
export const APNS_SANDBOX_URL = 'https://api.sandbox.push.apple.com';

/**
 * APNs refuses a provider token older than an hour and answers TooManyProviderTokenUpdates when a
 * connection's token changes more often than every 20 minutes: 50 minutes sits between the two.
 */
export const APNS_TOKEN_REFRESH_MS = 50 * 60_000;
/** APNs sends no Retry-After with a 429: the first wait, doubled per consecutive 429 of an account. */
export const APNS_THROTTLE_FIRST_MS = 1_000;
export const APNS_THROTTLE_MAX_MS = 60_000;
const CONNECT_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 15_000;
/** APNs answers an empty body or a small `{"reason": …}` document. */
const MAX_ANSWER_BYTES = 16 * 1024;

interface ApnsCredentials {
  keyId: string;
  teamId: string;
  privateKey: string;
}

interface CachedToken {
  jwt: string;
  issuedAtMs: number;
  /** Which credentials signed it: a changed key, team or .p8 gets a new token at once. */
  fingerprint: string;
}

interface Answer {
  status: number;
  apnsId: string | undefined;
  reason: string | undefined;
}

/** A session ended or never opened: the send is retried later (`unavailable`). */
class NoAnswerError extends Error {}

@Injectable()
export class ApnsAdapter implements ProviderAdapter, OnModuleDestroy {
  readonly channel = 'push' as const;
  readonly provider = 'apns';
  private readonly clock: Clock;
  /** One HTTP/2 session per origin and signing key, while it stays open. */
  private readonly sessions = new Map<string, Promise<ClientHttp2Session>>();
  /** Provider tokens by account id. */
  private readonly tokens = new Map<string, CachedToken>();
  /** The wait the next 429 of an account gets. */
  private readonly throttleDelays = new Map<string, number>();

  constructor(
    private readonly http: ProviderHttp,
    @Optional() clock?: Clock,
  ) {
    this.clock = clock ?? new SystemClock();
  }

  async onModuleDestroy(): Promise<void> {
    const open = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(
      open.map((s) =>
        s.then(
          (session) => new Promise<void>((resolve) => session.close(() => resolve())),
          () => undefined,
        ),
      ),
    );
  }

  async send(account: ProviderAccount, message: ProviderMessage): Promise<SendOutcome> {
    const credentials = readCredentials(account.credentials);
    if (!credentials) {
      return {
        kind: 'unauthorized',
        message: 'APNs credentials need keyId, teamId and privateKey',
      };
    }
    const bundleId = account.settings.bundleId;
    if (typeof bundleId !== 'string' || !bundleId) {
      return rejected('MissingTopic', 'The APNs account has no bundleId');
    }
    let origin: URL;
    try {
      origin = new URL(baseUrl(account.settings));
    } catch {
      return rejected('BadSettings', 'The APNs account apiBaseUrl is not a URL');
    }
    const notification = buildNotification(message.content as PushContent, this.clock.now());
    if ('error' in notification) return rejected('BadPayload', notification.error);

    try {
      const path = `/3/device/${encodeURIComponent(message.to)}`;
      const post = async (forceNewToken: boolean): Promise<Answer> => {
        const jwt = this.providerToken(account.id, credentials, forceNewToken);
        const session = await this.session(origin, credentials);
        return this.exchange(
          session,
          {
            [h2.HTTP2_HEADER_METHOD]: 'POST',
            [h2.HTTP2_HEADER_PATH]: path,
            authorization: `bearer ${jwt}`,
            'apns-topic': bundleId,
            'content-type': 'application/json',
            ...notification.headers,
          },
          notification.body,
        );
      };
      let answer = await post(false);
      // The token aged out on APNs' clock before ours: one fresh token, one more try.
      if (answer.status === 403 && answer.reason === 'ExpiredProviderToken')
        answer = await post(true);
      return this.outcome(account.id, answer);
    } catch (err) {
      if (err instanceof NoAnswerError) return { kind: 'unavailable', message: err.message };
      if (err instanceof ApnsKeyError) return { kind: 'unauthorized', message: err.message };
      return { kind: 'unavailable', message: `APNs: ${describeFailure(err, false, 0)}` };
    }
  }

  /** APNs posts no callbacks: nothing to verify. */
  verifySignature(): boolean {
    return false;
  }

  parseStatus(): [] {
    return [];
  }

  parseInbound(): [] {
    return [];
  }

  private outcome(accountId: string, answer: Answer): SendOutcome {
    const { status, reason } = answer;
    const code = reason ?? `HTTP ${status}`;
    if (status === 200) {
      this.throttleDelays.delete(accountId);
      return { kind: 'accepted', providerMessageId: answer.apnsId ?? '', status: 'sent' };
    }
    if (status === 410 || (status === 400 && reason === 'BadDeviceToken')) {
      return {
        kind: 'rejected',
        permanent: true,
        addressEffect: 'invalid',
        code,
        message:
          status === 410
            ? 'The device token is no longer active for the topic'
            : 'The device token is not valid for this app and environment',
      };
    }
    if (status === 403) {
      // A refused token is not reused: the next send signs a new one.
      this.tokens.delete(accountId);
      return { kind: 'unauthorized', message: `APNs refused the provider token (${code})` };
    }
    if (status === 429) {
      const delay = this.throttleDelays.get(accountId) ?? APNS_THROTTLE_FIRST_MS;
      this.throttleDelays.set(accountId, Math.min(delay * 2, APNS_THROTTLE_MAX_MS));
      return { kind: 'throttled', retryAfterMs: delay };
    }
    if (status >= 500) return { kind: 'unavailable', message: `APNs answered ${status} (${code})` };
    return rejected(code, `APNs refused the notification (${status} ${code})`);
  }

  /** The account's provider token, signed anew when missing, 50 minutes old or forced. */
  private providerToken(accountId: string, credentials: ApnsCredentials, force: boolean): string {
    const nowMs = this.clock.now().getTime();
    const fingerprint = createHash('sha256')
      .update(`${credentials.keyId}\n${credentials.teamId}\n${credentials.privateKey}`)
      .digest('base64url');
    const cached = this.tokens.get(accountId);
    if (
      !force &&
      cached &&
      cached.fingerprint === fingerprint &&
      nowMs - cached.issuedAtMs < APNS_TOKEN_REFRESH_MS
    ) {
      return cached.jwt;
    }
    const jwt = signApnsProviderToken(credentials, Math.floor(nowMs / 1000));
    this.tokens.set(accountId, { jwt, issuedAtMs: nowMs, fingerprint });
    return jwt;
  }

  /**
   * The open session for an origin and signing key, or a new one. Sessions are kept per signing
   * key as well as per origin: APNs authenticates a connection with the team's token, and
   * switching a connection between teams' tokens reads to it as refreshes.
   */
  private async session(origin: URL, credentials: ApnsCredentials): Promise<ClientHttp2Session> {
    const id = `${origin.origin} ${credentials.teamId} ${credentials.keyId}`;
    const open = this.sessions.get(id);
    if (open) {
      const session = await open.catch(() => undefined);
      if (session && !session.closed && !session.destroyed) return session;
      if (this.sessions.get(id) === open) this.sessions.delete(id);
    }
    const forget = () => {
      if (this.sessions.get(id) === created) this.sessions.delete(id);
    };
    const created = this.connect(origin).then((session) => {
      session.on('close', forget);
      // GOAWAY: APNs is closing this connection; new streams go to a new one.
      session.on('goaway', forget);
      session.on('error', forget);
      return session;
    });
    created.catch(forget);
    this.sessions.set(id, created);
    return created;
  }

  private async connect(origin: URL): Promise<ClientHttp2Session> {
    const host = bareHost(origin.hostname);
    const target = await this.http.target(host);
    const port = Number(origin.port || 443);
    return new Promise<ClientHttp2Session>((resolve, reject) => {
      let socket: TLSSocket | undefined;
      const timer = setTimeout(() => {
        const timeout = Object.assign(new Error('Connection timed out'), {
          code: 'UND_ERR_CONNECT_TIMEOUT',
        });
        if (socket) socket.destroy(timeout);
        else reject(timeout);
      }, CONNECT_TIMEOUT_MS);
      const session = connectHttp2(origin.origin, {
        createConnection: () => {
          // The socket goes to the checked address; SNI and the certificate check stay on the name.
          socket = connectTls({
            host: target.address,
            port,
            servername: isIP(host) ? undefined : host,
            ALPNProtocols: ['h2'],
            ...(this.http.ca ? { ca: [...rootCertificates, this.http.ca] } : {}),
          });
          return socket;
        },
      });
      session.once('connect', () => {
        clearTimeout(timer);
        session.off('error', onError);
        session.on('error', () => undefined);
        // An idle connection must not keep a process from exiting.
        session.unref();
        resolve(session);
      });
      const onError = (err: Error) => {
        clearTimeout(timer);
        session.destroy();
        reject(err);
      };
      session.once('error', onError);
    });
  }

  /** One request on a session: the status, apns-id and reason, or NoAnswerError. */
  private exchange(
    session: ClientHttp2Session,
    headers: Record<string, string>,
    body: string,
  ): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      let status = 0;
      let apnsId: string | undefined;
      let ended = false;
      let failure: unknown;
      const chunks: Buffer[] = [];
      let kept = 0;
      const stream = session.request(headers);
      stream.setTimeout(REQUEST_TIMEOUT_MS, () => {
        failure = new NoAnswerError(`APNs: Request timed out after ${REQUEST_TIMEOUT_MS / 1000}s`);
        stream.close(h2.NGHTTP2_CANCEL);
      });
      stream.on('response', (h) => {
        status = Number(h[h2.HTTP2_HEADER_STATUS]);
        const id = h['apns-id'];
        apnsId = typeof id === 'string' ? id : undefined;
      });
      stream.on('data', (chunk: Buffer) => {
        if (kept < MAX_ANSWER_BYTES) {
          chunks.push(chunk.subarray(0, MAX_ANSWER_BYTES - kept));
          kept += Math.min(chunk.length, MAX_ANSWER_BYTES - kept);
        }
      });
      stream.on('end', () => (ended = true));
      stream.on('error', (err) => (failure ??= err));
      stream.on('close', () => {
        if (status && ended) {
          resolve({ status, apnsId, reason: reasonOf(Buffer.concat(chunks, kept)) });
        } else if (failure instanceof NoAnswerError) {
          reject(failure);
        } else {
          const why = failure
            ? describeFailure(failure, false, 0)
            : 'Stream closed before an answer';
          reject(new NoAnswerError(`APNs: ${why}`));
        }
      });
      stream.end(body);
    });
  }
}

function readCredentials(raw: Record<string, unknown>): ApnsCredentials | undefined {
  const { keyId, teamId, privateKey } = raw;
  if (typeof keyId !== 'string' || typeof teamId !== 'string' || typeof privateKey !== 'string') {
    return undefined;
  }
  if (!keyId || !teamId || !privateKey) return undefined;
  return { keyId, teamId, privateKey };
}

/** `settings.apiBaseUrl`, else Apple's server for the account's environment. */
export function baseUrl(settings: Record<string, unknown>): string {
  if (typeof settings.apiBaseUrl === 'string' && settings.apiBaseUrl) return settings.apiBaseUrl;
  return settings.environment === 'sandbox' ? APNS_SANDBOX_URL : APNS_PRODUCTION_URL;
}

/**
 * The payload and apns-* headers of a push: an alert when it has a title or body (priority 10),
 * else a background notification (`content-available`, priority 5, as Apple requires).
 */
export function buildNotification(
  content: PushContent,
  now: Date,
): { headers: Record<string, string>; body: string } | { error: string } {
  const data = content.data ?? {};
  if (Object.prototype.hasOwnProperty.call(data, 'aps')) {
    return { error: 'Push data cannot use the key "aps" (APNs reserves it)' };
  }
  const alert = content.title !== undefined || content.body !== undefined;
  const aps: Record<string, unknown> = alert
    ? {
        alert: {
          ...(content.title !== undefined ? { title: content.title } : {}),
          ...(content.body !== undefined ? { body: content.body } : {}),
        },
        // Lets the app's notification service extension fetch the image before display.
        ...(content.imageUrl ? { 'mutable-content': 1 } : {}),
      }
    : { 'content-available': 1 };
  const payload = { ...data, ...(content.imageUrl ? { imageUrl: content.imageUrl } : {}), aps };
  const headers: Record<string, string> = {
    'apns-push-type': alert ? 'alert' : 'background',
    'apns-priority': alert ? '10' : '5',
  };
  if (content.ttlSeconds !== undefined) {
    // 0 means "deliver now or never" to APNs as to us; anything else is an absolute epoch second.
    headers['apns-expiration'] =
      content.ttlSeconds <= 0
        ? '0'
        : String(Math.floor(now.getTime() / 1000) + Math.floor(content.ttlSeconds));
  }
  if (content.collapseKey) headers['apns-collapse-id'] = content.collapseKey;
  return { headers, body: JSON.stringify(payload) };
}

function rejected(code: string, message: string): SendOutcome {
  return { kind: 'rejected', permanent: false, code, message };
}

function reasonOf(body: Buffer): string | undefined {
  if (!body.length) return undefined;
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { reason?: unknown };
    return typeof parsed.reason === 'string' ? parsed.reason : undefined;
  } catch {
    return undefined;
  }
}
