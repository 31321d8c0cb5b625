// A loopback APNs provider API (HTTP/2 over TLS) as Apple documents it: "Sending notification
// requests to APNs", "Handling notification responses from APNs" and "Establishing a token-based
// connection to APNs". It checks the provider token (ES256 JWT signed with the team's .p8 key), the
// topic, the apns-* headers and the payload, answers with Apple's status codes and `reason` bodies,
// and lets a test flag tokens, force the next answers and stop the service for an outage.
import { Clock, SystemClock } from '@app/domain/common/clock';
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  KeyObject,
  randomUUID,
  verify,
} from 'node:crypto';
import {
  constants as h2,
  createSecureServer,
  Http2SecureServer,
  Http2Session,
  IncomingHttpHeaders,
  ServerHttp2Stream,
} from 'node:http2';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';

/** Apple's limit for every push type but VoIP (5 KB). */
const MAX_PAYLOAD_BYTES = 4096;
const MAX_COLLAPSE_ID_BYTES = 64;
/** APNs refuses a provider token whose `iat` is more than an hour old. */
const TOKEN_LIFETIME_S = 3600;
/** APNs refuses a connection's token refreshed more often than every 20 minutes. */
const MIN_REFRESH_S = 20 * 60;
const PUSH_TYPES = [
  'alert',
  'background',
  'location',
  'voip',
  'complication',
  'fileprovider',
  'mdm',
  'liveactivity',
  'pushtotalk',
];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ApnsFakeOptions {
  /** The app's bundle id: the only topic accepted. */
  bundleId?: string;
  teamId?: string;
  keyId?: string;
  /** The service's clock, for provider-token ages. */
  clock?: Clock;
  /** The team's signing key to accept (.p8 PEM; default: one generated). */
  privateKey?: string;
  /** The port to listen on (default: a free one). */
  port?: number;
}

/** A notification the fake accepted. */
export interface ReceivedNotification {
  at: Date;
  deviceToken: string;
  /** Request headers, lower-case (pseudo-headers left out). */
  headers: Record<string, string>;
  payload: Record<string, unknown>;
  apnsId: string;
}

/** Every request and the answer it got. */
export interface ApnsAttempt {
  deviceToken: string;
  status: number;
  reason?: string;
}

export class ApnsFake {
  readonly bundleId: string;
  readonly teamId: string;
  readonly keyId: string;
  /** The team's signing key as Apple's developer account hands it out (.p8, PKCS #8 PEM). */
  readonly privateKey: string;
  readonly received: ReceivedNotification[] = [];
  readonly attempts: ApnsAttempt[] = [];
  clock: Clock;

  private readonly publicKey: KeyObject;
  private readonly unregistered = new Map<string, number>();
  private readonly bad = new Set<string>();
  private readonly tokensSeen = new Set<string>();
  /** The token (and its iat) each connection last authenticated with, per key id. */
  private readonly sessionTokens = new WeakMap<
    Http2Session,
    Map<string, { jwt: string; iat: number }>
  >();
  private readonly sessions = new Set<Http2Session>();
  /** Connections accepted since start (a provider is expected to reuse one). */
  connectionsOpened = 0;
  private forced: { status: number; reason: string }[] = [];
  private server: Http2SecureServer | undefined;
  private port = 0;

  private constructor(
    options: ApnsFakeOptions,
    /** The server's certificate (self-signed): what clients trust, as PROVIDER_TLS_CA. */
    readonly cert: string,
    private readonly key: string,
  ) {
    this.bundleId = options.bundleId ?? 'com.example.app';
    this.teamId = options.teamId ?? 'ABCDE12345';
    this.keyId = options.keyId ?? 'KEY1234567';
    this.clock = options.clock ?? new SystemClock();
    const signing = options.privateKey
      ? createPrivateKey(options.privateKey)
      : generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    this.privateKey = signing.export({ type: 'pkcs8', format: 'pem' }).toString();
    this.publicKey = createPublicKey(signing);
    this.port = options.port ?? 0;
  }

  static async start(options: ApnsFakeOptions = {}): Promise<ApnsFake> {
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      extensions: [
        { name: 'basicConstraints', cA: false },
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'localhost' },
            { type: 7, ip: '127.0.0.1' },
          ],
        },
      ],
    });
    const fake = new ApnsFake(options, pems.cert, pems.private);
    await fake.resume();
    return fake;
  }

  /** `https://127.0.0.1:<port>`: an account's `settings.apiBaseUrl`. */
  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  /** How many different provider tokens were presented with a valid signature. */
  get distinctProviderTokens(): number {
    return this.tokensSeen.size;
  }

  /** Connections open now. */
  get openConnections(): number {
    return this.sessions.size;
  }

  /** The device token is no longer active for the topic: 410 `Unregistered` from `atMs` on. */
  unregister(deviceToken: string, atMs = this.clock.now().getTime()): void {
    this.unregistered.set(deviceToken.toLowerCase(), atMs);
  }

  /** The device token is refused as 400 `BadDeviceToken` (wrong environment, say). */
  markBad(deviceToken: string): void {
    this.bad.add(deviceToken.toLowerCase());
  }

  /** The next `count` requests get `status` with `reason`, whatever they carry. */
  failNext(count: number, status: 429 | 500 | 503, reason?: string): void {
    const fallback =
      status === 429
        ? 'TooManyRequests'
        : status === 500
          ? 'InternalServerError'
          : 'ServiceUnavailable';
    for (let i = 0; i < count; i++) this.forced.push({ status, reason: reason ?? fallback });
  }

  /** An outage: the listener closes and every open connection is dropped. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    for (const session of this.sessions) session.destroy();
    this.sessions.clear();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Back after an outage, on the same port. */
  async resume(): Promise<void> {
    if (this.server) return;
    const server = createSecureServer({ key: this.key, cert: this.cert, allowHTTP1: false });
    server.on('session', (session: Http2Session) => {
      this.connectionsOpened++;
      this.sessions.add(session);
      session.on('close', () => this.sessions.delete(session));
      session.on('error', () => undefined);
    });
    server.on('stream', (stream, headers) => this.onStream(stream, headers));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async close(): Promise<void> {
    await this.stop();
  }

  private onStream(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void {
    stream.on('error', () => undefined);
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Kept only up to one byte past the limit: enough to answer 413.
      if (size <= MAX_PAYLOAD_BYTES + 1) chunks.push(chunk);
    });
    stream.on('end', () => this.answer(stream, headers, Buffer.concat(chunks), size));
  }

  private answer(
    stream: ServerHttp2Stream,
    headers: IncomingHttpHeaders,
    body: Buffer,
    size: number,
  ): void {
    const path = String(headers[h2.HTTP2_HEADER_PATH] ?? '');
    const deviceToken = decodeURIComponent(path.match(/^\/3\/device\/([^/?]*)$/)?.[1] ?? '');
    const apnsId = typeof headers['apns-id'] === 'string' ? headers['apns-id'] : randomUUID();
    const reply = (status: number, reason?: string, extra: Record<string, unknown> = {}) => {
      this.attempts.push({ deviceToken, status, ...(reason ? { reason } : {}) });
      if (stream.destroyed) return;
      const responseHeaders = { [h2.HTTP2_HEADER_STATUS]: status, 'apns-id': apnsId };
      if (!reason) {
        stream.respond(responseHeaders, { endStream: true });
        return;
      }
      stream.respond({ ...responseHeaders, 'content-type': 'application/json' });
      stream.end(JSON.stringify({ reason, ...extra }));
    };

    if (headers[h2.HTTP2_HEADER_METHOD] !== 'POST') return reply(405, 'MethodNotAllowed');
    if (!path.startsWith('/3/device/')) return reply(404, 'BadPath');
    const forced = this.forced.shift();
    if (forced) return reply(forced.status, forced.reason);

    const auth = this.checkProviderToken(stream.session, headers.authorization);
    if (auth) return reply(auth.status, auth.reason);

    const topic = headers['apns-topic'];
    if (!topic) return reply(400, 'MissingTopic');
    if (topic !== this.bundleId) return reply(400, 'TopicDisallowed');
    const invalid = this.invalidHeader(headers);
    if (invalid) return reply(400, invalid);
    if (!deviceToken) return reply(400, 'MissingDeviceToken');
    const lower = deviceToken.toLowerCase();
    if (!/^[0-9a-f]{64}$/i.test(deviceToken) || this.bad.has(lower)) {
      return reply(400, 'BadDeviceToken');
    }
    if (size > MAX_PAYLOAD_BYTES) return reply(413, 'PayloadTooLarge');
    const payload = parseObject(body);
    // Apple documents no reason for a body that is not a JSON dictionary with `aps`; the fake
    // answers it as an empty payload, the one payload reason Apple lists.
    if (!payload || typeof payload.aps !== 'object' || payload.aps === null) {
      return reply(400, 'PayloadEmpty');
    }
    const gone = this.unregistered.get(lower);
    if (gone !== undefined) return reply(410, 'Unregistered', { timestamp: gone });

    const kept: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (!name.startsWith(':') && value !== undefined) kept[name] = String(value);
    }
    this.received.push({ at: this.clock.now(), deviceToken, headers: kept, payload, apnsId });
    reply(200);
  }

  /** The provider token's verdict as APNs gives it, or undefined when it is good. */
  private checkProviderToken(
    session: Http2Session | undefined,
    authorization: string | undefined,
  ): { status: number; reason: string } | undefined {
    if (!authorization) return { status: 403, reason: 'MissingProviderToken' };
    const jwt = authorization.match(/^bearer (.+)$/i)?.[1];
    const parts = jwt?.split('.') ?? [];
    if (!jwt || parts.length !== 3) return { status: 403, reason: 'InvalidProviderToken' };
    const header = parseObject(Buffer.from(parts[0], 'base64url'));
    const claims = parseObject(Buffer.from(parts[1], 'base64url'));
    const signed = verify(
      'sha256',
      Buffer.from(`${parts[0]}.${parts[1]}`),
      { key: this.publicKey, dsaEncoding: 'ieee-p1363' },
      Buffer.from(parts[2], 'base64url'),
    );
    if (
      !signed ||
      header?.alg !== 'ES256' ||
      header.kid !== this.keyId ||
      claims?.iss !== this.teamId ||
      typeof claims.iat !== 'number'
    ) {
      return { status: 403, reason: 'InvalidProviderToken' };
    }
    const iat = claims.iat;
    if (Math.floor(this.clock.now().getTime() / 1000) - iat > TOKEN_LIFETIME_S) {
      return { status: 403, reason: 'ExpiredProviderToken' };
    }
    if (session) {
      const byKey =
        this.sessionTokens.get(session) ?? new Map<string, { jwt: string; iat: number }>();
      this.sessionTokens.set(session, byKey);
      const current = byKey.get(this.keyId);
      if (current && current.jwt !== jwt && iat - current.iat < MIN_REFRESH_S) {
        return { status: 429, reason: 'TooManyProviderTokenUpdates' };
      }
      byKey.set(this.keyId, { jwt, iat });
    }
    this.tokensSeen.add(jwt);
    return undefined;
  }

  /** The first apns-* header APNs would refuse, as its reason. */
  private invalidHeader(headers: IncomingHttpHeaders): string | undefined {
    const id = headers['apns-id'];
    if (id !== undefined && !UUID.test(String(id))) return 'BadMessageId';
    const priority = headers['apns-priority'];
    if (priority !== undefined && !['1', '5', '10'].includes(String(priority))) {
      return 'BadPriority';
    }
    const expiration = headers['apns-expiration'];
    if (expiration !== undefined && !/^\d+$/.test(String(expiration))) return 'BadExpirationDate';
    const pushType = headers['apns-push-type'];
    if (pushType !== undefined && !PUSH_TYPES.includes(String(pushType))) return 'InvalidPushType';
    const collapseId = headers['apns-collapse-id'];
    if (collapseId !== undefined && Buffer.byteLength(String(collapseId)) > MAX_COLLAPSE_ID_BYTES) {
      return 'BadCollapseId';
    }
    return undefined;
  }
}

function parseObject(raw: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
