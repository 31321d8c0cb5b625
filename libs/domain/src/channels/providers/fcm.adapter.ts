// Push through Firebase Cloud Messaging HTTP v1 (§17): one `messages:send` per device token,
// authorised by an OAuth2 access token minted from the account's service-account key (a JWT-bearer
// grant at the key's own `token_uri`) and cached per account until shortly before it expires.
import { Injectable, Optional } from '@nestjs/common';
import { Clock, SystemClock } from '../../common/clock';
import type {
  InboundProviderMessage,
  ProviderAccount,
  ProviderAdapter,
  ProviderMessage,
  PushContent,
  SendOutcome,
  StatusUpdate,
} from '../provider-adapter';
import { ProviderHttp, ProviderResponse, ProviderUnreachableError } from '../provider-http';
import { signJwt } from './jwt';

export const FCM_DEFAULT_API_BASE_URL = 'https://fcm.googleapis.com';
export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const FCM_ERROR_TYPE = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';
/** Google accepts assertions valid for at most an hour. */
const ASSERTION_LIFETIME_S = 3600;
/** A cached access token is replaced this long before Google says it expires. */
const REFRESH_MARGIN_MS = 60_000;
/** FCM's QUOTA_EXCEEDED guidance: back off at least one minute when no Retry-After is given. */
const DEFAULT_RETRY_AFTER_MS = 60_000;
/** FCM's longest message lifespan (4 weeks). */
const MAX_TTL_S = 2_419_200;
/** FCM's own words are kept in outcomes, up to this length. */
const MAX_MESSAGE_CHARS = 300;

/** The fields of a service-account key the adapter uses. */
interface ServiceAccount {
  projectId: string;
  clientEmail: string;
  privateKeyId: string | undefined;
  privateKey: string;
  tokenUri: string;
}

interface CachedToken {
  fingerprint: string;
  accessToken: string;
  refreshAt: number;
}

type Failure = Exclude<SendOutcome, { kind: 'accepted' }>;
type Minted = { accessToken: string } | { failure: Failure };

interface GoogleRpcStatus {
  code?: number;
  message?: string;
  status?: string;
  details?: {
    '@type'?: string;
    errorCode?: string;
    fieldViolations?: { field?: string }[];
  }[];
}

@Injectable()
export class FcmAdapter implements ProviderAdapter {
  readonly channel = 'push' as const;
  readonly provider = 'fcm';
  /** Access tokens by account id (the fingerprint tells a replaced key from the cached one). */
  private readonly cache = new Map<string, CachedToken>();
  /** Mints under way, by account id and key: concurrent sends wait for the same one. */
  private readonly minting = new Map<string, Promise<Minted>>();

  constructor(
    private readonly http: ProviderHttp,
    @Optional() private readonly clock: Clock = new SystemClock(),
  ) {}

  async send(account: ProviderAccount, message: ProviderMessage): Promise<SendOutcome> {
    const sa = readServiceAccount(account.credentials.serviceAccount);
    if (typeof sa === 'string') return { kind: 'unauthorized', message: sa };
    const body = JSON.stringify({ message: fcmMessage(message, this.clock.now()) });
    const configured = account.settings.apiBaseUrl;
    const base = (
      typeof configured === 'string' && configured ? configured : FCM_DEFAULT_API_BASE_URL
    ).replace(/\/+$/, '');
    const url = `${base}/v1/projects/${encodeURIComponent(sa.projectId)}/messages:send`;

    let minted = await this.accessToken(account.id, sa);
    if ('failure' in minted) return minted.failure;
    let res = await this.post(url, minted.accessToken, body);
    if (!('status' in res)) return res;
    if (res.status === 401 && fcmErrorCode(parseStatus(res)) !== 'THIRD_PARTY_AUTH_ERROR') {
      // An access token revoked or expired early: one fresh mint, one more try.
      this.forget(account.id, minted.accessToken);
      minted = await this.accessToken(account.id, sa);
      if ('failure' in minted) return minted.failure;
      res = await this.post(url, minted.accessToken, body);
      if (!('status' in res)) return res;
    }
    return sendOutcome(res, this.clock.now());
  }

  /** FCM HTTP v1 posts no status callbacks: nothing can carry its signature. */
  verifySignature(): boolean {
    return false;
  }

  parseStatus(): StatusUpdate[] {
    return [];
  }

  parseInbound(): InboundProviderMessage[] {
    return [];
  }

  private async post(
    url: string,
    accessToken: string,
    body: string,
  ): Promise<ProviderResponse | Failure> {
    try {
      return await this.http.request({
        method: 'POST',
        url,
        headers: {
          Authorization: `Bearer ${accessToken}`,
          'Content-Type': 'application/json; charset=utf-8',
        },
        body,
      });
    } catch (err) {
      return { kind: 'unavailable', message: `FCM unreachable: ${unreachable(err)}` };
    }
  }

  /** The cached access token of the account, or one minted now (shared by concurrent sends). */
  private accessToken(accountId: string, sa: ServiceAccount): Promise<Minted> {
    const fingerprint = `${sa.clientEmail}\n${sa.privateKeyId ?? ''}\n${sa.tokenUri}`;
    const cached = this.cache.get(accountId);
    if (
      cached &&
      cached.fingerprint === fingerprint &&
      this.clock.now().getTime() < cached.refreshAt
    ) {
      return Promise.resolve({ accessToken: cached.accessToken });
    }
    const key = `${accountId}\n${fingerprint}`;
    let pending = this.minting.get(key);
    if (!pending) {
      pending = this.mint(sa).then(
        (minted): Minted => {
          this.minting.delete(key);
          if ('failure' in minted) return minted;
          this.cache.set(accountId, { fingerprint, ...minted });
          return { accessToken: minted.accessToken };
        },
        (): Minted => {
          this.minting.delete(key);
          return {
            failure: { kind: 'unavailable', message: 'Minting an FCM access token failed' },
          };
        },
      );
      this.minting.set(key, pending);
    }
    return pending;
  }

  private forget(accountId: string, accessToken: string): void {
    if (this.cache.get(accountId)?.accessToken === accessToken) this.cache.delete(accountId);
  }

  /** The JWT-bearer grant of "Using OAuth 2.0 for Server to Server Applications". */
  private async mint(
    sa: ServiceAccount,
  ): Promise<{ accessToken: string; refreshAt: number } | { failure: Failure }> {
    const iat = Math.floor(this.clock.now().getTime() / 1000);
    let assertion: string;
    try {
      assertion = signJwt(
        sa.privateKeyId ? { typ: 'JWT', kid: sa.privateKeyId } : { typ: 'JWT' },
        {
          iss: sa.clientEmail,
          scope: FCM_SCOPE,
          aud: sa.tokenUri,
          iat,
          exp: iat + ASSERTION_LIFETIME_S,
        },
        sa.privateKey,
        'RS256',
      );
    } catch {
      return {
        failure: {
          kind: 'unauthorized',
          message: 'The service-account private_key is not a valid RSA private key',
        },
      };
    }
    let res: ProviderResponse;
    try {
      res = await this.http.request({
        method: 'POST',
        url: sa.tokenUri,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: JWT_BEARER, assertion }).toString(),
      });
    } catch (err) {
      return {
        failure: {
          kind: 'unavailable',
          message: `OAuth2 token endpoint unreachable: ${unreachable(err)}`,
        },
      };
    }
    const json = parseJson(res.body) as
      | {
          access_token?: unknown;
          expires_in?: unknown;
          error?: unknown;
          error_description?: unknown;
        }
      | undefined;
    if (res.status === 200 && typeof json?.access_token === 'string') {
      const expiresIn = Number(json.expires_in);
      const lifetimeMs = Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn * 1000 : 0;
      return {
        accessToken: json.access_token,
        refreshAt: this.clock.now().getTime() + lifetimeMs - REFRESH_MARGIN_MS,
      };
    }
    if (res.status === 429) {
      return { failure: { kind: 'throttled', retryAfterMs: retryAfterMs(res, this.clock.now()) } };
    }
    const said = [json?.error, json?.error_description]
      .filter((s) => typeof s === 'string')
      .join(': ');
    const message = clip(`OAuth2 token endpoint answered ${res.status}${said ? ` (${said})` : ''}`);
    // Google answers a refused key or assertion 400 invalid_grant, 401 invalid_client.
    if (res.status >= 400 && res.status < 500)
      return { failure: { kind: 'unauthorized', message } };
    return { failure: { kind: 'unavailable', message } };
  }
}

/** The service-account key of the credentials, or why it cannot be used (never quoting it). */
function readServiceAccount(raw: unknown): ServiceAccount | string {
  let key = raw;
  if (typeof key === 'string') {
    try {
      key = JSON.parse(key);
    } catch {
      return 'The service-account key is not JSON';
    }
  }
  if (typeof key !== 'object' || key === null) return 'No service-account key in the credentials';
  const k = key as Record<string, unknown>;
  if (k.type !== undefined && k.type !== 'service_account')
    return 'The key is not a service-account key';
  for (const field of ['project_id', 'client_email', 'private_key', 'token_uri']) {
    if (typeof k[field] !== 'string' || k[field] === '')
      return `The service-account key lacks ${field}`;
  }
  return {
    projectId: k.project_id as string,
    clientEmail: k.client_email as string,
    privateKeyId: typeof k.private_key_id === 'string' ? k.private_key_id : undefined,
    privateKey: k.private_key as string,
    tokenUri: k.token_uri as string,
  };
}

/** The v1 message for one device token, per-platform options as FCM documents them. */
export function fcmMessage(message: ProviderMessage, now: Date): Record<string, unknown> {
  const c = message.content as PushContent;
  const out: Record<string, unknown> = { token: message.to };
  const notification: Record<string, string> = {};
  if (c.title !== undefined) notification.title = c.title;
  if (c.body !== undefined) notification.body = c.body;
  if (c.imageUrl !== undefined) notification.image = c.imageUrl;
  if (Object.keys(notification).length) out.notification = notification;
  if (c.data && Object.keys(c.data).length) out.data = c.data;

  const ttl =
    c.ttlSeconds === undefined
      ? undefined
      : Math.min(MAX_TTL_S, Math.max(0, Math.floor(c.ttlSeconds)));
  const android: Record<string, string> = {};
  const apnsHeaders: Record<string, string> = {};
  if (ttl !== undefined) {
    android.ttl = `${ttl}s`;
    // APNs takes an absolute expiry in epoch seconds; 0 means "now or never", as ttl 0 does.
    apnsHeaders['apns-expiration'] = String(ttl === 0 ? 0 : Math.floor(now.getTime() / 1000) + ttl);
    out.webpush = { headers: { TTL: String(ttl) } };
  }
  if (c.collapseKey !== undefined) {
    android.collapse_key = c.collapseKey;
    apnsHeaders['apns-collapse-id'] = c.collapseKey;
  }
  if (Object.keys(android).length) out.android = android;
  if (Object.keys(apnsHeaders).length) out.apns = { headers: apnsHeaders };
  return out;
}

/** FCM's answer to a send as an outcome (the table in docs/channels/fcm.md). */
function sendOutcome(res: ProviderResponse, now: Date): SendOutcome {
  if (res.status === 200) {
    const name = (parseJson(res.body) as { name?: unknown } | undefined)?.name;
    if (typeof name === 'string')
      return { kind: 'accepted', providerMessageId: name, status: 'sent' };
    return { kind: 'unavailable', message: 'FCM answered 200 without a message name' };
  }
  const error = parseStatus(res);
  const errorCode = fcmErrorCode(error);
  const code = errorCode ?? error?.status ?? `HTTP_${res.status}`;
  const message = clip(`FCM ${res.status} ${code}${error?.message ? `: ${error.message}` : ''}`);
  if (res.status === 429) return { kind: 'throttled', retryAfterMs: retryAfterMs(res, now) };
  if (res.status >= 500) return { kind: 'unavailable', message };
  if (errorCode === 'UNREGISTERED') {
    return { kind: 'rejected', permanent: true, addressEffect: 'invalid', code, message };
  }
  if (res.status === 401 || res.status === 403) return { kind: 'unauthorized', message };
  if (res.status === 400 && concernsToken(error)) {
    return { kind: 'rejected', permanent: true, addressEffect: 'invalid', code, message };
  }
  return { kind: 'rejected', permanent: false, code, message };
}

/** An INVALID_ARGUMENT about the registration token rather than the payload. */
function concernsToken(error: GoogleRpcStatus | undefined): boolean {
  if (!error) return false;
  if (/registration token/i.test(error.message ?? '')) return true;
  return (error.details ?? []).some((d) =>
    (d.fieldViolations ?? []).some((v) => v.field === 'message.token'),
  );
}

function parseStatus(res: ProviderResponse): GoogleRpcStatus | undefined {
  const json = parseJson(res.body) as { error?: unknown } | undefined;
  return typeof json?.error === 'object' && json.error !== null
    ? (json.error as GoogleRpcStatus)
    : undefined;
}

function fcmErrorCode(error: GoogleRpcStatus | undefined): string | undefined {
  return error?.details?.find((d) => d['@type'] === FCM_ERROR_TYPE)?.errorCode;
}

/** Retry-After in seconds or as an HTTP date; FCM's one-minute minimum backoff when absent. */
function retryAfterMs(res: ProviderResponse, now: Date): number {
  const value = res.headers['retry-after']?.trim();
  if (value) {
    if (/^\d+$/.test(value)) return Number(value) * 1000;
    const at = Date.parse(value);
    if (Number.isFinite(at)) return Math.max(0, at - now.getTime());
  }
  return DEFAULT_RETRY_AFTER_MS;
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function unreachable(err: unknown): string {
  return err instanceof ProviderUnreachableError ? err.message : 'request failed';
}

function clip(text: string): string {
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…` : text;
}
