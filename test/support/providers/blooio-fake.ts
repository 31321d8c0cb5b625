// A loopback Blooio API (v2, `https://backend.blooio.com/v2/api`) for tests and development: sending
// to a chat (an E.164 number or an Apple ID e-mail) with Blooio's bearer auth, JSON bodies, error
// bodies `{error, message, status, code?}` and `Idempotency-Key`; the message status resource; the
// webhook subscription that returns its `signing_secret` once; and the webhooks Blooio posts
// (`message.sent`, `.delivered`, `.read`, `.failed`, `.received`), signed
// `X-Blooio-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` keyed with the secret.
// Sources: docs.blooio.com (messages/sendMessage, messages/getMessageStatus, api-reference/errors,
// guides/error-handling, guides/message-sending, api-reference/webhook-events,
// guides/webhook-signatures, guides/webhooks-local); Blooio's TypeScript SDK (chats/messages.ts) for
// the status and protocol values; the `blooio` crate (webhook module) for the `message.failed`
// fields `error_code`, `error_message` and `internal_id`. Blooio publishes no list of delivery
// error codes: the fake's `delivery_failed` is its own.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const BLOOIO_API_PATH = '/v2/api';

/**
 * Addresses the fake treats as not on iMessage (Blooio has no test numbers; these are the fake's
 * own): a number falls back to SMS (`protocol: "sms"`), an Apple ID e-mail cannot and fails with
 * `protocol: "non-imessage"`. `markNotOnImessage` adds others.
 */
export const BLOOIO_FAKE_ADDRESSES = {
  smsOnlyNumber: '+15555550199',
  notOnImessageAppleId: 'no-imessage@example.com',
} as const;

const E164 = /^\+[1-9]\d{1,14}$/;
const EMAIL = /^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/;

export interface BlooioFakeMessage {
  messageId: string;
  chatId: string;
  fromNumber: string;
  text: string;
  attachments: string[];
  status: 'queued' | 'sent' | 'delivered' | 'failed';
  protocol: 'pending' | 'imessage' | 'sms' | 'non-imessage';
  idempotencyKey: string | null;
  /** The JSON body as received. */
  body: Record<string, unknown>;
  headers: IncomingMessage['headers'];
}

export interface BlooioFakeOptions {
  apiKey?: string;
  signingSecret?: string;
  /** The number of the account's pool that sends when a request names none. */
  fromNumber?: string;
  port?: number;
}

export interface BlooioWebhookResult {
  status: number;
  body: Record<string, unknown>;
  signature: string;
}

/** `X-Blooio-Signature` of a raw body at `t` (seconds). */
export function blooioSignature(secret: string, t: number, rawBody: string): string {
  const v1 = createHmac('sha256', secret).update(`${t}.${rawBody}`, 'utf8').digest('hex');
  return `t=${t},v1=${v1}`;
}

const id = (prefix: string) => prefix + randomBytes(10).toString('base64url');

export class BlooioFake {
  readonly apiKey: string;
  readonly signingSecret: string;
  readonly fromNumber: string;
  /** Accepted messages, in order. */
  readonly messages: BlooioFakeMessage[] = [];
  /** Every request that reached the fake, refused or not. */
  requests = 0;
  /** Where webhooks go: set by `POST /webhooks` or directly. */
  webhookUrl: string | null = null;
  private server?: Server;
  private port: number;
  private readonly failures: { status: 429 | 500 | 503; retryAfter?: number }[] = [];
  private readonly notOnImessage = new Set<string>(Object.values(BLOOIO_FAKE_ADDRESSES));
  private readonly chats = new Set<string>();

  constructor(options: BlooioFakeOptions = {}) {
    this.apiKey = options.apiKey ?? `bl_live_${randomBytes(16).toString('hex')}`;
    this.signingSecret = options.signingSecret ?? `whsec_${randomBytes(20).toString('hex')}`;
    this.fromNumber = options.fromNumber ?? '+14155550111';
    this.port = options.port ?? 0;
  }

  static async start(options?: BlooioFakeOptions): Promise<BlooioFake> {
    const fake = new BlooioFake(options);
    await fake.start();
    return fake;
  }

  /** What an account's `settings.apiBaseUrl` is set to (Blooio's base URL includes `/v2/api`). */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}${BLOOIO_API_PATH}`;
  }

  /** Listens (again, on the same port after `stop`, so a configured base URL keeps working). */
  async start(): Promise<void> {
    const server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  /** An outage: the port refuses connections until `start`. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  /** The next `count` requests are answered `status` (429 with `Retry-After` when given). */
  failNext(count: number, status: 429 | 500 | 503, retryAfterSeconds?: number): void {
    for (let i = 0; i < count; i++) this.failures.push({ status, retryAfter: retryAfterSeconds });
  }

  /** An address that is not signed in to iMessage. */
  markNotOnImessage(address: string): void {
    this.notOnImessage.add(address);
  }

  message(messageId: string): BlooioFakeMessage | undefined {
    return this.messages.find((m) => m.messageId === messageId);
  }

  /**
   * What the device does with a queued message, posted as Blooio's webhooks: over iMessage
   * `message.sent` then `message.delivered`; to a number not on iMessage the same over SMS; to an
   * Apple ID not on iMessage `message.failed` with `protocol: "non-imessage"`.
   */
  async settle(messageId: string): Promise<BlooioWebhookResult[]> {
    const m = this.mustFind(messageId);
    if (!this.notOnImessage.has(m.chatId)) {
      return [
        await this.event(messageId, 'message.sent'),
        await this.event(messageId, 'message.delivered'),
      ];
    }
    if (E164.test(m.chatId)) {
      m.protocol = 'sms';
      return [
        await this.event(messageId, 'message.sent'),
        await this.event(messageId, 'message.delivered'),
      ];
    }
    m.protocol = 'non-imessage';
    return [
      await this.event(messageId, 'message.failed', {
        error_message: `${m.chatId} is not registered with iMessage`,
      }),
    ];
  }

  /** Posts one lifecycle webhook of an outbound message (fields per Blooio's webhook events). */
  async event(
    messageId: string,
    event: 'message.sent' | 'message.delivered' | 'message.read' | 'message.failed',
    extra: Record<string, unknown> = {},
  ): Promise<BlooioWebhookResult> {
    const m = this.mustFind(messageId);
    const now = Date.now();
    if (m.protocol === 'pending') m.protocol = 'imessage';
    if (event === 'message.sent') m.status = 'sent';
    if (event === 'message.delivered') m.status = 'delivered';
    if (event === 'message.failed') m.status = 'failed';
    const body: Record<string, unknown> = {
      event,
      message_id: m.messageId,
      external_id: m.chatId,
      internal_id: m.fromNumber,
      protocol: m.protocol,
      timestamp: now,
      device_id: 'A1B2C3D4',
    };
    if (event === 'message.sent') {
      if (m.text) body.text = m.text;
      else body.attachments = m.attachments;
      body.sent_at = now - 500;
    }
    if (event === 'message.delivered') body.delivered_at = now - 200;
    if (event === 'message.read') body.read_at = now - 100;
    if (event === 'message.failed') {
      body.error_code = 'delivery_failed';
      body.error_message = 'Message could not be delivered';
    }
    return this.post({ ...body, ...extra });
  }

  /** A text from `from` to the account's number, posted as `message.received`. */
  async inbound(
    from: string,
    text: string,
    attachments: string[] = [],
  ): Promise<BlooioWebhookResult> {
    const now = Date.now();
    return this.post({
      event: 'message.received',
      message_id: id('msg_'),
      external_id: from,
      internal_id: this.fromNumber,
      text,
      attachments,
      protocol: E164.test(from) && this.notOnImessage.has(from) ? 'sms' : 'imessage',
      timestamp: now,
      device_id: 'A1B2C3D4',
      received_at: now - 300,
    });
  }

  private mustFind(messageId: string): BlooioFakeMessage {
    const m = this.message(messageId);
    if (!m) throw new Error(`No message ${messageId}`);
    return m;
  }

  private async post(body: Record<string, unknown>): Promise<BlooioWebhookResult> {
    if (!this.webhookUrl) throw new Error('No webhook configured');
    const raw = JSON.stringify(body);
    const signature = blooioSignature(this.signingSecret, Math.floor(Date.now() / 1000), raw);
    const res = await fetch(this.webhookUrl, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-Blooio-Event': String(body.event),
        'X-Blooio-Message-Id': String(body.message_id),
        'X-Blooio-Signature': signature,
      },
      body: raw,
    });
    await res.arrayBuffer();
    return { status: res.status, body, signature };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.requests += 1;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '/').split('?')[0];

    if (!path.startsWith(`${BLOOIO_API_PATH}/`)) return error(res, 404, 'Not found.');
    const rest = path.slice(BLOOIO_API_PATH.length);
    if (!this.authorized(req)) return error(res, 401, 'Invalid or missing API key.');
    const failure = this.failures.shift();
    if (failure?.status === 429) {
      const headers: Record<string, string> = failure.retryAfter
        ? { 'Retry-After': String(failure.retryAfter) }
        : {};
      return error(res, 429, 'Too many requests.', undefined, headers);
    }
    if (failure?.status === 503) return error(res, 503, 'No active devices available.');
    if (failure) return error(res, 500, 'Internal server error.');

    if (rest === '/webhooks' && req.method === 'POST') return this.createWebhook(res, raw);
    const send = rest.match(/^\/chats\/([^/]+)\/messages$/);
    if (send && req.method === 'POST') return this.send(req, res, decodeURIComponent(send[1]), raw);
    const status = rest.match(/^\/chats\/([^/]+)\/messages\/([^/]+)\/status$/);
    const m = status && this.message(decodeURIComponent(status[2]));
    if (m && req.method === 'GET' && m.chatId === decodeURIComponent(status[1])) {
      return json(res, 200, {
        message_id: m.messageId,
        chat_id: m.chatId,
        direction: 'outbound',
        status: m.status,
        protocol: m.protocol,
        time_sent: Date.now(),
        time_delivered: m.status === 'delivered' ? Date.now() : null,
        error: m.status === 'failed' ? 'Message could not be delivered' : null,
      });
    }
    return error(res, 404, 'Resource not found.');
  }

  /** `Authorization: Bearer <api key>`. */
  private authorized(req: IncomingMessage): boolean {
    const header = req.headers.authorization ?? '';
    if (!header.startsWith('Bearer ')) return false;
    const given = Buffer.from(header.slice(7));
    const expected = Buffer.from(this.apiKey);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private createWebhook(res: ServerResponse, raw: string): void {
    const body = parse(raw);
    const url = body?.webhook_url;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) {
      return error(res, 400, 'Invalid request parameters.');
    }
    this.webhookUrl = url;
    json(res, 201, {
      webhook_id: id('wh_'),
      webhook_url: url,
      webhook_type: body?.webhook_type ?? 'message',
      signing_secret: this.signingSecret,
    });
  }

  private send(req: IncomingMessage, res: ServerResponse, chatId: string, raw: string): void {
    const key = header(req, 'idempotency-key');
    const earlier = key ? this.messages.find((m) => m.idempotencyKey === key) : undefined;
    if (earlier) return json(res, 202, { message_id: earlier.messageId, status: 'queued' });

    const body = req.headers['content-type']?.startsWith('application/json') ? parse(raw) : null;
    if (!body || (!E164.test(chatId) && !EMAIL.test(chatId))) {
      return error(res, 400, 'Invalid request parameters.');
    }
    const text = typeof body.text === 'string' ? body.text : '';
    const attachments = Array.isArray(body.attachments)
      ? body.attachments.map((a) =>
          typeof a === 'string' ? a : String((a as { url?: string })?.url),
        )
      : [];
    if (!text && attachments.length === 0) return error(res, 400, 'Invalid request parameters.');
    const from = header(req, 'x-from-number') ?? (body.from_number as string | undefined);
    if (from !== undefined && from !== this.fromNumber) {
      return error(res, 403, 'Action not allowed for this API key.');
    }
    if (!text && !this.chats.has(chatId)) {
      return error(
        res,
        400,
        'Cannot send an attachment as the first message to a new conversation. Apple requires the first message to contain text. Please send a text message first, then send your attachment.',
        'attachment_first_message_not_allowed',
      );
    }
    this.chats.add(chatId);
    const m: BlooioFakeMessage = {
      messageId: id('msg_'),
      chatId,
      fromNumber: from ?? this.fromNumber,
      text,
      attachments,
      status: 'queued',
      protocol: 'pending',
      idempotencyKey: key ?? null,
      body,
      headers: req.headers,
    };
    this.messages.push(m);
    json(res, 202, { message_id: m.messageId, status: 'queued' });
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === 'string' && v ? v : undefined;
}

function parse(raw: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(raw);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

/** Blooio's error body. */
function error(
  res: ServerResponse,
  status: number,
  message: string,
  code?: string,
  headers: Record<string, string> = {},
) {
  json(res, status, { error: 'ApiError', message, status, ...(code ? { code } : {}) }, headers);
}
