// A loopback fake of Firebase Cloud Messaging HTTP v1 and of Google's OAuth2 token endpoint for
// service accounts, speaking their documented wire formats: the service-account key file, the
// JWT-bearer grant (RS256 assertion checked against the key's public half), bearer access tokens,
// `messages:send` validated as FCM does, and errors as google.rpc.Status with FcmError details.
import { createPublicKey, generateKeyPairSync, randomBytes, randomUUID, verify } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A service-account key as the Google Cloud console downloads it (JSON). */
export interface ServiceAccountKey {
  type: 'service_account';
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  auth_uri: string;
  token_uri: string;
  auth_provider_x509_cert_url: string;
  client_x509_cert_url: string;
  universe_domain: string;
}

/** What a registration token does when a message is sent to it. */
export type FcmTokenState = 'valid' | 'unregistered' | 'third_party_auth_error';

export interface FcmTokenRequest {
  at: Date;
  clientEmail?: string;
  /** The access token granted, when one was. */
  accessToken?: string;
  error?: string;
}

export interface FcmReceivedMessage {
  at: Date;
  projectId: string;
  name: string;
  message: Record<string, unknown>;
  validateOnly: boolean;
}

export interface FcmFakeOptions {
  projectId?: string;
  /** Lifetime of an access token in seconds (Google: 3599). */
  tokenLifetimeSeconds?: number;
  /** The fake's clock, in milliseconds (tests that move time move it here too). */
  now?: () => number;
  /** The port to listen on (default: a free one). */
  port?: number;
  /** The project's key to accept (default: one created at start); its token_uri must be the fake's. */
  serviceAccount?: ServiceAccountKey;
  /**
   * A token never registered is taken as a valid one of the project, instead of FCM's answer to an
   * unknown token (development: any app's token reaches the fake).
   */
  acceptAnyToken?: boolean;
  /**
   * The size of the RSA keys of the service accounts it creates (Google's: 2048). A unit spec
   * passes a smaller one: nothing checks the size, and the key is made several times faster.
   */
  rsaBits?: number;
}

export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const FCM_ERROR = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';
/** FCM's payload limit for a message to a token (keys and values of `data` and `notification`). */
const MAX_PAYLOAD_BYTES = 4096;
const MAX_TTL_SECONDS = 2_419_200;

const MESSAGE_FIELDS = [
  'name',
  'data',
  'notification',
  'android',
  'webpush',
  'apns',
  'fcm_options',
  'token',
  'topic',
  'condition',
];
const NOTIFICATION_FIELDS = ['title', 'body', 'image'];
const ANDROID_FIELDS = [
  'collapse_key',
  'priority',
  'ttl',
  'restricted_package_name',
  'data',
  'notification',
  'fcm_options',
  'direct_boot_ok',
];
const APNS_FIELDS = ['headers', 'payload', 'fcm_options', 'live_activity_token'];
const WEBPUSH_FIELDS = ['headers', 'data', 'notification', 'fcm_options'];

type Status = {
  http: number;
  status: string;
  message: string;
  details?: unknown[];
  headers?: Record<string, string>;
};

const fcmError = (http: number, status: string, message: string, errorCode: string): Status => ({
  http,
  status,
  message,
  details: [{ '@type': FCM_ERROR, errorCode }],
});
const badRequest = (field: string, description: string): Status => ({
  http: 400,
  status: 'INVALID_ARGUMENT',
  message: description,
  details: [{ '@type': BAD_REQUEST, fieldViolations: [{ field, description }] }],
});
const invalidToken = (): Status =>
  fcmError(
    400,
    'INVALID_ARGUMENT',
    'The registration token is not a valid FCM registration token',
    'INVALID_ARGUMENT',
  );

export class FcmFake {
  readonly projectId: string;
  private server: Server | undefined;
  private port = 0;
  private readonly now: () => number;
  private readonly lifetime: number;
  private readonly acceptAnyToken: boolean;
  private readonly givenServiceAccount: ServiceAccountKey | undefined;
  private readonly rsaBits: number;
  private readonly accounts = new Map<
    string,
    { key: ServiceAccountKey; publicKey: ReturnType<typeof createPublicKey> }
  >();
  private readonly accessTokens = new Map<
    string,
    { clientEmail: string; projectId: string; expiresAt: number }
  >();
  private readonly tokens = new Map<string, { state: FcmTokenState; projectId: string }>();
  private failures: { status: 429 | 500 | 503; retryAfterSeconds?: number }[] = [];
  readonly messages: FcmReceivedMessage[] = [];
  readonly tokenRequests: FcmTokenRequest[] = [];
  /** The key of the fake's project (created at start). */
  serviceAccount!: ServiceAccountKey;

  constructor(options: FcmFakeOptions = {}) {
    this.projectId = options.projectId ?? 'fake-project-1234';
    this.lifetime = options.tokenLifetimeSeconds ?? 3599;
    this.now = options.now ?? Date.now;
    this.port = options.port ?? 0;
    this.acceptAnyToken = options.acceptAnyToken ?? false;
    this.givenServiceAccount = options.serviceAccount;
    this.rsaBits = options.rsaBits ?? 2048;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (this.server) return;
    const server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', resolve);
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    if (!this.serviceAccount) {
      this.serviceAccount = this.givenServiceAccount
        ? this.addServiceAccount(this.givenServiceAccount)
        : this.createServiceAccount();
    }
  }

  /** Stops answering (an outage): connections are refused until `start` again, on the same port. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  /** A further service-account key; its project is `projectId` (default the fake's). */
  createServiceAccount(projectId = this.projectId): ServiceAccountKey {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: this.rsaBits });
    const name = `firebase-adminsdk-${randomBytes(3).toString('hex').slice(0, 5)}`;
    const clientEmail = `${name}@${projectId}.iam.gserviceaccount.com`;
    const key: ServiceAccountKey = {
      type: 'service_account',
      project_id: projectId,
      private_key_id: randomBytes(20).toString('hex'),
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      client_email: clientEmail,
      client_id: String(BigInt(`0x${randomBytes(9).toString('hex')}`))
        .padStart(21, '1')
        .slice(0, 21),
      auth_uri: 'https://accounts.google.com/o/oauth2/auth',
      token_uri: `${this.url}/token`,
      auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
      client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(clientEmail)}`,
      universe_domain: 'googleapis.com',
    };
    this.accounts.set(clientEmail, { key, publicKey });
    return key;
  }

  /** Accepts an existing key (its public half is derived from its private key). */
  addServiceAccount(key: ServiceAccountKey): ServiceAccountKey {
    this.accounts.set(key.client_email, { key, publicKey: createPublicKey(key.private_key) });
    return key;
  }

  /** Registers a device token (of `projectId`'s app, default the fake's). */
  registerToken(token: string, state: FcmTokenState = 'valid', projectId = this.projectId): void {
    this.tokens.set(token, { state, projectId });
  }

  /** The next `count` sends answer `status` (429 with Retry-After when given). */
  failNext(count: number, status: 429 | 500 | 503, retryAfterSeconds?: number): void {
    for (let i = 0; i < count; i++) this.failures.push({ status, retryAfterSeconds });
  }

  /** Revokes every access token granted so far (they answer 401 as expired ones do). */
  expireAccessTokens(): void {
    this.accessTokens.clear();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'POST' && path === '/token') return this.token(body, res);
    const send = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(path);
    if (send && req.method === 'POST')
      return this.answer(res, this.send(decodeURIComponent(send[1]), req, body));
    const status = send ? 405 : 404;
    res
      .writeHead(status, { 'Content-Type': 'text/html; charset=UTF-8' })
      .end(`<!DOCTYPE html><title>Error ${status}</title>`);
  }

  // ---- OAuth2 token endpoint -------------------------------------------------------------------

  private token(body: string, res: ServerResponse): void {
    const form = new URLSearchParams(body);
    const request: FcmTokenRequest = { at: new Date(this.now()) };
    this.tokenRequests.push(request);
    const refuse = (status: number, error: string, description: string) => {
      request.error = `${error}: ${description}`;
      res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify({ error, error_description: description }));
    };
    if (form.get('grant_type') !== JWT_BEARER) {
      return refuse(
        400,
        'unsupported_grant_type',
        `Invalid grant_type: ${form.get('grant_type') ?? ''}`,
      );
    }
    const parts = (form.get('assertion') ?? '').split('.');
    let header: Record<string, unknown>;
    let claims: Record<string, unknown>;
    try {
      if (parts.length !== 3) throw new Error('parts');
      header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8'));
      claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    } catch {
      return refuse(400, 'invalid_request', 'Invalid JWT: Malformed.');
    }
    const iss = typeof claims.iss === 'string' ? claims.iss : '';
    request.clientEmail = iss || undefined;
    const account = this.accounts.get(iss);
    if (!account) return refuse(400, 'invalid_grant', 'Invalid grant: account not found');
    if (header.alg !== 'RS256') return refuse(400, 'invalid_grant', 'Invalid JWT Signature.');
    if (header.kid !== undefined && header.kid !== account.key.private_key_id) {
      return refuse(400, 'invalid_grant', 'Invalid JWT Signature.');
    }
    const signed = verify(
      'sha256',
      Buffer.from(`${parts[0]}.${parts[1]}`),
      account.publicKey,
      Buffer.from(parts[2], 'base64url'),
    );
    if (!signed) return refuse(400, 'invalid_grant', 'Invalid JWT Signature.');
    if (claims.aud !== account.key.token_uri) {
      return refuse(400, 'invalid_grant', 'Invalid JWT: Failed audience check.');
    }
    const nowS = Math.floor(this.now() / 1000);
    const iat = Number(claims.iat);
    const exp = Number(claims.exp);
    // Google allows a short clock skew and at most one hour of validity.
    if (
      !Number.isInteger(iat) ||
      !Number.isInteger(exp) ||
      exp <= iat ||
      exp - iat > 3600 ||
      iat > nowS + 300 ||
      exp < nowS
    ) {
      return refuse(
        400,
        'invalid_grant',
        'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
      );
    }
    const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ') : [];
    if (!scopes.includes(FCM_SCOPE)) {
      return refuse(400, 'invalid_scope', 'Invalid OAuth scope or ID token audience provided.');
    }
    const accessToken = `ya29.c.${randomBytes(48).toString('base64url')}`;
    this.accessTokens.set(accessToken, {
      clientEmail: iss,
      projectId: account.key.project_id,
      expiresAt: this.now() + this.lifetime * 1000,
    });
    request.accessToken = accessToken;
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
    res.end(
      JSON.stringify({
        access_token: accessToken,
        expires_in: this.lifetime,
        token_type: 'Bearer',
      }),
    );
  }

  // ---- messages:send ---------------------------------------------------------------------------

  private send(projectId: string, req: IncomingMessage, body: string): Status | { name: string } {
    const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    const grant = auth ? this.accessTokens.get(auth[1]) : undefined;
    if (!grant || grant.expiresAt <= this.now()) {
      return {
        http: 401,
        status: 'UNAUTHENTICATED',
        message:
          'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
      };
    }
    if (grant.projectId !== projectId) {
      return {
        http: 403,
        status: 'PERMISSION_DENIED',
        message: `Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/${projectId}' (or it may not exist).`,
      };
    }
    const failure = this.failures.shift();
    if (failure?.status === 429) {
      const status = fcmError(
        429,
        'RESOURCE_EXHAUSTED',
        'Quota exceeded for quota metric.',
        'QUOTA_EXCEEDED',
      );
      if (failure.retryAfterSeconds !== undefined)
        status.headers = { 'Retry-After': String(failure.retryAfterSeconds) };
      return status;
    }
    if (failure?.status === 503)
      return fcmError(503, 'UNAVAILABLE', 'The service is currently unavailable.', 'UNAVAILABLE');
    if (failure?.status === 500)
      return fcmError(500, 'INTERNAL', 'Internal error encountered.', 'INTERNAL');

    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (err) {
      return {
        http: 400,
        status: 'INVALID_ARGUMENT',
        message: `Invalid JSON payload received. ${(err as Error).message}`,
      };
    }
    if (!isObject(parsed))
      return { http: 400, status: 'INVALID_ARGUMENT', message: 'Invalid JSON payload received.' };
    const unknownTop = Object.keys(parsed).find(
      (k) => !['message', 'validate_only', 'validateOnly'].includes(k),
    );
    if (unknownTop) return unknownName(unknownTop, '');
    const message = parsed.message;
    if (!isObject(message))
      return {
        http: 400,
        status: 'INVALID_ARGUMENT',
        message: 'Recipient of the message is not set.',
      };
    const invalid = validateMessage(message);
    if (invalid) return invalid;

    const token = message.token as string;
    const device =
      this.tokens.get(token) ??
      (this.acceptAnyToken ? { state: 'valid' as const, projectId } : undefined);
    if (!device) return invalidToken();
    if (device.state === 'unregistered') {
      return fcmError(404, 'NOT_FOUND', 'Requested entity was not found.', 'UNREGISTERED');
    }
    if (device.projectId !== projectId)
      return fcmError(403, 'PERMISSION_DENIED', 'SenderId mismatch', 'SENDER_ID_MISMATCH');
    if (device.state === 'third_party_auth_error') {
      return fcmError(
        401,
        'UNAUTHENTICATED',
        'Auth error from APNS or Web Push Service',
        'THIRD_PARTY_AUTH_ERROR',
      );
    }
    const validateOnly = parsed.validate_only === true || parsed.validateOnly === true;
    const name = `projects/${projectId}/messages/${validateOnly ? 'fake_message_id' : `0:${this.now()}%${randomUUID().slice(0, 16)}`}`;
    this.messages.push({ at: new Date(this.now()), projectId, name, message, validateOnly });
    return { name };
  }

  private answer(res: ServerResponse, result: Status | { name: string }): void {
    res.setHeader('Content-Type', 'application/json; charset=UTF-8');
    if ('name' in result) return void res.writeHead(200).end(JSON.stringify(result));
    const error = {
      code: result.http,
      message: result.message,
      status: result.status,
      ...(result.details ? { details: result.details } : {}),
    };
    res.writeHead(result.http, result.headers ?? {}).end(JSON.stringify({ error }));
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function unknownName(name: string, at: string): Status {
  const description = `Invalid JSON payload received. Unknown name "${name}"${at ? ` at '${at}'` : ''}: Cannot find field.`;
  return badRequest(at, description);
}

function checkFields(
  obj: Record<string, unknown>,
  allowed: string[],
  at: string,
): Status | undefined {
  const extra = Object.keys(obj).find((k) => !allowed.includes(k));
  return extra === undefined ? undefined : unknownName(extra, at);
}

/** Each value of a `map<string, string>` field must be a string, as protobuf's JSON mapping says. */
function checkStringMap(value: unknown, at: string): Status | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value))
    return badRequest(at, `Invalid value at '${at}' (map), ${JSON.stringify(value)}`);
  const entries = Object.entries(value);
  const i = entries.findIndex(([, v]) => typeof v !== 'string');
  if (i < 0) return undefined;
  const field = `${at}[${i}].value`;
  return badRequest(
    field,
    `Invalid value at '${field}' (TYPE_STRING), ${JSON.stringify(entries[i][1])}`,
  );
}

/** The checks FCM applies to a message before looking at its target. */
function validateMessage(m: Record<string, unknown>): Status | undefined {
  const fields = checkFields(m, MESSAGE_FIELDS, 'message');
  if (fields) return fields;
  const targets = ['token', 'topic', 'condition'].filter((k) => m[k] !== undefined);
  if (targets.length === 0)
    return {
      http: 400,
      status: 'INVALID_ARGUMENT',
      message: 'Recipient of the message is not set.',
    };
  if (targets.length > 1) {
    return badRequest(
      'message',
      `Invalid value at 'message' (oneof), oneof field 'target' is already set. Cannot set '${targets[1]}'`,
    );
  }
  // Topic and condition sends are outside what the platform uses: the fake takes tokens only.
  if (typeof m.token !== 'string' || m.token === '') return invalidToken();
  for (const [key, allowed] of [
    ['notification', NOTIFICATION_FIELDS],
    ['android', ANDROID_FIELDS],
    ['apns', APNS_FIELDS],
    ['webpush', WEBPUSH_FIELDS],
  ] as const) {
    const part = m[key];
    if (part === undefined) continue;
    if (!isObject(part))
      return badRequest(
        `message.${key}`,
        `Invalid value at 'message.${key}', ${JSON.stringify(part)}`,
      );
    const bad = checkFields(part, [...allowed], `message.${key}`);
    if (bad) return bad;
  }
  const maps: [unknown, string][] = [
    [m.data, 'message.data'],
    [(m.android as Record<string, unknown> | undefined)?.data, 'message.android.data'],
    [(m.apns as Record<string, unknown> | undefined)?.headers, 'message.apns.headers'],
    [(m.webpush as Record<string, unknown> | undefined)?.headers, 'message.webpush.headers'],
    [(m.webpush as Record<string, unknown> | undefined)?.data, 'message.webpush.data'],
  ];
  for (const [value, at] of maps) {
    const bad = checkStringMap(value, at);
    if (bad) return bad;
  }
  const reserved = Object.keys((m.data as Record<string, string> | undefined) ?? {}).find(
    (k) => k === 'from' || k === 'gcm' || k.startsWith('google'),
  );
  if (reserved)
    return fcmError(
      400,
      'INVALID_ARGUMENT',
      `Invalid data payload key: ${reserved}`,
      'INVALID_ARGUMENT',
    );
  const ttl = (m.android as Record<string, unknown> | undefined)?.ttl;
  if (ttl !== undefined) {
    const match = typeof ttl === 'string' ? /^(\d+)(\.\d{1,9})?s$/.exec(ttl) : null;
    if (!match || Number(match[1]) > MAX_TTL_SECONDS) {
      const field = 'message.android.ttl';
      return badRequest(
        field,
        `Invalid value at '${field}' (type.googleapis.com/google.protobuf.Duration), ${JSON.stringify(ttl)}`,
      );
    }
  }
  const size =
    Buffer.byteLength(JSON.stringify(m.data ?? {})) +
    Buffer.byteLength(JSON.stringify(m.notification ?? {}));
  if (size > MAX_PAYLOAD_BYTES) {
    return fcmError(400, 'INVALID_ARGUMENT', 'Message is too big', 'INVALID_ARGUMENT');
  }
  return undefined;
}
