// A loopback WhatsApp Cloud API (Meta's Graph API) for tests and development: the messages edge of
// one business phone number (`POST /{version}/{phone-number-id}/messages`, JSON, bearer token),
// refusing what the Cloud API refuses with Graph's error body and Meta's codes, and the webhooks
// Meta posts to the app's callback URL: the verification GET (`hub.challenge`), status
// notifications and inbound messages in the `whatsapp_business_account` envelope, signed with
// X-Hub-Signature-256 over the escaped-unicode body. Sources (developers.facebook.com):
// documentation/business-messaging/whatsapp/messages/send-messages, …/support/error-codes,
// …/webhooks/reference/messages/status, …/webhooks/reference/messages/text, docs/graph-api/
// webhooks/getting-started (verification request, payload validation), docs/graph-api/guides/
// error-handling, and the 24-hour customer service window of …/pricing.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The Graph API version a client names first in the path (`/v21.0/...`); any version is served. */
const VERSION_PATH = /^\/(v\d+\.\d+)\/(\d+)\/messages\/?$/;
/** The customer service window: free-form messages only this long after the customer's last one. */
export const CUSTOMER_SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;
/** A text message body takes at most this many characters. */
const MAX_TEXT_CHARS = 4096;

/**
 * The Graph errors the fake answers, with the HTTP status of Meta's error-code table (Meta advises
 * clients to act on `code`, not on the status: throttling codes are listed as 429 there, and some
 * clients observe them as 400).
 */
export const GRAPH_ERRORS: Record<
  GraphErrorCode,
  { http: number; title: string; details?: string }
> = {
  100: { http: 400, title: 'Invalid parameter' },
  190: { http: 401, title: 'Access token has expired' },
  4: { http: 429, title: 'Application request limit reached' },
  80007: { http: 429, title: 'Rate limit issues' },
  130429: {
    http: 429,
    title: 'Rate limit hit',
    details:
      'Message failed to send because there were too many messages sent from this phone number in a short period of time',
  },
  131048: { http: 429, title: 'Spam rate limit hit' },
  131056: {
    http: 429,
    title: '(Business Account, Consumer Account) pair rate limit hit',
    details:
      'Message failed to send because there were too many messages sent from this phone number to the same phone number in a short period of time',
  },
  131000: { http: 500, title: 'Something went wrong' },
  131016: { http: 503, title: 'Service unavailable' },
  131009: { http: 400, title: 'Parameter value is not valid' },
  131026: { http: 400, title: 'Message Undeliverable.' },
  131047: {
    http: 400,
    title: 'Re-engagement message',
    details:
      'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
  },
  132000: { http: 400, title: 'Number of parameters does not match the expected number of params' },
  132001: { http: 404, title: 'Template name does not exist in the translation' },
};
export type GraphErrorCode =
  | 4
  | 100
  | 190
  | 80007
  | 130429
  | 131000
  | 131009
  | 131016
  | 131026
  | 131047
  | 131048
  | 131056
  | 132000
  | 132001;

/** What a number can receive: `blocked` stands for a person who blocked us or is not on WhatsApp. */
export type WhatsappNumberState = 'reachable' | 'blocked';
export type WhatsappStatus = 'sent' | 'delivered' | 'read' | 'failed';

export interface WhatsappFakeTemplate {
  name: string;
  /** The language code of this translation (`en_US`). */
  language: string;
  /** How many `{{n}}` variables its body has. */
  bodyParameters: number;
}

export interface WhatsappFakeMessage {
  id: string;
  /** Digits only, as Meta's `wa_id` and `recipient_id`. */
  waId: string;
  type: 'text' | 'template';
  text?: { body: string; preview_url: boolean };
  template?: { name: string; language: string; parameters: string[] };
  /** `biz_opaque_callback_data`, echoed in the message's status notifications. */
  opaque?: string;
  status: WhatsappStatus | 'accepted';
  createdAt: Date;
  /** The request body, as received. */
  body: Record<string, unknown>;
}

export interface WhatsappFakeRequest {
  method: string;
  path: string;
  /** Whether it carried the fake's access token (the token itself is not kept). */
  authorized: boolean;
  body: unknown;
  status: number;
}

export interface WhatsappFakeOptions {
  accessToken?: string;
  /** The app secret that signs the webhooks: 32 hex digits, as Meta's. */
  appSecret?: string;
  phoneNumberId?: string;
  businessAccountId?: string;
  /** The business number as webhooks show it: digits, no `+`. */
  displayPhoneNumber?: string;
  /** Where webhooks are posted (the app's callback URL). */
  callbackUrl?: string;
  port?: number;
}

export interface WhatsappWebhookResult {
  status: number;
  /** The exact body posted and the signature header sent with it. */
  rawBody: string;
  signature: string;
}

interface GraphFailure {
  code: GraphErrorCode;
  retryAfter?: number;
  details?: string;
}

/** `X-Hub-Signature-256`: `sha256=` and the lower-case hex HMAC-SHA256 of the raw body. */
export function hubSignature256(appSecret: string, rawBody: string | Buffer): string {
  return 'sha256=' + createHmac('sha256', appSecret).update(rawBody).digest('hex');
}

/**
 * JSON as Meta posts it: every character beyond ASCII escaped (`ä` → `\u00e4`, lower-case hex),
 * which is the text the signature covers.
 */
export function metaJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'),
  );
}

const digits = (n: string) => n.replace(/\D/g, '');
const fbtraceId = () => randomBytes(16).toString('base64url').slice(0, 23);
const wamid = () => 'wamid.' + randomBytes(30).toString('base64');
const unixSeconds = (d = new Date()) => String(Math.floor(d.getTime() / 1000));

export class WhatsappFake {
  readonly accessToken: string;
  readonly appSecret: string;
  readonly phoneNumberId: string;
  readonly businessAccountId: string;
  readonly displayPhoneNumber: string;
  callbackUrl: string | undefined;
  /** Accepted messages, in order. */
  readonly messages: WhatsappFakeMessage[] = [];
  /** Every request that reached the API, refused or not, in order. */
  readonly requests: WhatsappFakeRequest[] = [];
  /** Approved templates; Meta's sample `hello_world` (en_US, no variables) is there from the start. */
  readonly templates: WhatsappFakeTemplate[] = [
    { name: 'hello_world', language: 'en_US', bodyParameters: 0 },
  ];
  private server?: Server;
  private port: number;
  private readonly failures: GraphFailure[] = [];
  private readonly states = new Map<string, WhatsappNumberState>();
  /** The time of each customer's last message to us (it opens the service window). */
  private readonly lastInbound = new Map<string, Date>();

  constructor(options: WhatsappFakeOptions = {}) {
    this.accessToken = options.accessToken ?? 'EAA' + randomBytes(48).toString('base64url');
    this.appSecret = options.appSecret ?? randomBytes(16).toString('hex');
    this.phoneNumberId = options.phoneNumberId ?? '106540352242922';
    this.businessAccountId = options.businessAccountId ?? '102290129340398';
    this.displayPhoneNumber = options.displayPhoneNumber ?? '15550783881';
    this.callbackUrl = options.callbackUrl;
    this.port = options.port ?? 0;
  }

  static async start(options?: WhatsappFakeOptions): Promise<WhatsappFake> {
    const fake = new WhatsappFake(options);
    await fake.start();
    return fake;
  }

  /** What an account's `settings.apiBaseUrl` is set to. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
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

  /**
   * The next `count` sends are refused: 429 (130429, throughput), 500 (131000), 503 (131016), or
   * any listed Graph code with its status (131056 pair rate limit, 80007, 4…), with `details` for
   * its `error_data`. Meta sends no Retry-After; `retryAfterSeconds` adds one, for clients that
   * honour it.
   */
  failNext(
    count: number,
    what: 429 | 500 | 503 | GraphErrorCode,
    retryAfterSeconds?: number,
    details?: string,
  ) {
    const code: GraphErrorCode =
      what === 429 ? 130429 : what === 500 ? 131000 : what === 503 ? 131016 : what;
    for (let i = 0; i < count; i++) {
      this.failures.push({ code, retryAfter: retryAfterSeconds, details });
    }
  }

  /** Whether a number can receive (`blocked`: sends to it are refused with 131026). */
  setNumberState(number: string, state: WhatsappNumberState): void {
    this.states.set(digits(number), state);
  }

  /** Opens a number's customer service window as if the customer wrote at `at` (default: now). */
  openWindow(number: string, at: Date = new Date()): void {
    this.lastInbound.set(digits(number), at);
  }

  closeWindow(number: string): void {
    this.lastInbound.delete(digits(number));
  }

  windowOpen(number: string, now: Date = new Date()): boolean {
    const last = this.lastInbound.get(digits(number));
    return !!last && now.getTime() - last.getTime() < CUSTOMER_SERVICE_WINDOW_MS;
  }

  addTemplate(template: WhatsappFakeTemplate): void {
    this.templates.push(template);
  }

  message(id: string): WhatsappFakeMessage | undefined {
    return this.messages.find((m) => m.id === id);
  }

  /**
   * Meta's verification request to the callback URL: a GET with `hub.mode=subscribe`, the verify
   * token and a challenge; the subscription holds only when the answer is 200 with the challenge.
   */
  async verifyCallback(
    verifyToken: string,
    url = this.requireCallback(),
  ): Promise<{ verified: boolean; status: number; body: string; challenge: string }> {
    const challenge = String(1_000_000_000 + (randomBytes(4).readUInt32BE(0) % 1_000_000_000));
    const target = new URL(url);
    target.searchParams.set('hub.mode', 'subscribe');
    target.searchParams.set('hub.challenge', challenge);
    target.searchParams.set('hub.verify_token', verifyToken);
    const res = await fetch(target, { headers: { 'User-Agent': 'facebookplatform/1.0' } });
    const body = await res.text();
    return {
      verified: res.status === 200 && body === challenge,
      status: res.status,
      body,
      challenge,
    };
  }

  /**
   * Moves a message to `status` and posts its status notification; `failed` carries `errors[]`
   * with `errorCode` (default 131026). `sent` and the first of delivered/read carry the pricing
   * object, as Meta's do.
   */
  async status(
    id: string,
    status: WhatsappStatus,
    errorCode: number = 131026,
  ): Promise<WhatsappWebhookResult> {
    const m = this.message(id);
    if (!m) throw new Error(`No message ${id}`);
    const first = m.status === 'accepted' || m.status === 'sent';
    m.status = status;
    const entry: Record<string, unknown> = {
      id: m.id,
      status,
      timestamp: unixSeconds(),
      recipient_id: m.waId,
    };
    if (m.opaque) entry.biz_opaque_callback_data = m.opaque;
    if (status === 'failed') {
      const known = GRAPH_ERRORS[errorCode as GraphErrorCode] as
        (typeof GRAPH_ERRORS)[100] | undefined;
      const title = known?.title ?? 'Message failed to send';
      entry.errors = [
        {
          code: errorCode,
          title,
          message: title,
          error_data: { details: known?.details ?? title },
          href: 'https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/',
        },
      ];
    } else if (first) {
      // Per-message pricing: a template is charged, a reply inside the service window is free.
      entry.pricing =
        m.type === 'template'
          ? { billable: true, pricing_model: 'PMP', type: 'regular', category: 'marketing' }
          : {
              billable: false,
              pricing_model: 'PMP',
              type: 'free_customer_service',
              category: 'service',
            };
    }
    return this.post({ statuses: [entry] });
  }

  /**
   * A customer's message to our number, posted as Meta's inbound notification; it opens the
   * customer's service window. `kind` picks the message type: a text, a quick-reply button of a
   * template, or an interactive reply.
   */
  async inbound(
    from: string,
    text: string,
    kind: 'text' | 'button' | 'button_reply' | 'list_reply' = 'text',
    name = 'Test Customer',
  ): Promise<WhatsappWebhookResult & { id: string }> {
    const waId = digits(from);
    const id = 'wamid.' + randomBytes(30).toString('base64');
    const message: Record<string, unknown> = {
      from: waId,
      id,
      timestamp: unixSeconds(),
      type: kind,
    };
    if (kind === 'text') message.text = { body: text };
    else if (kind === 'button') message.button = { payload: text, text };
    else {
      message.type = 'interactive';
      message.interactive = { type: kind, [kind]: { id: 'reply-1', title: text } };
    }
    this.lastInbound.set(waId, new Date());
    const result = await this.post({
      contacts: [{ profile: { name }, wa_id: waId }],
      messages: [message],
    });
    return { ...result, id };
  }

  /** Posts one `messages` change to the callback URL, signed as Meta signs it. */
  async post(value: Record<string, unknown>, url = this.requireCallback()) {
    const rawBody = metaJson({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: this.businessAccountId,
          changes: [
            {
              value: {
                messaging_product: 'whatsapp',
                metadata: {
                  display_phone_number: this.displayPhoneNumber,
                  phone_number_id: this.phoneNumberId,
                },
                ...value,
              },
              field: 'messages',
            },
          ],
        },
      ],
    });
    const signature = hubSignature256(this.appSecret, rawBody);
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': 'facebookexternalua',
        'X-Hub-Signature-256': signature,
        'X-Hub-Signature':
          'sha1=' + createHmac('sha1', this.appSecret).update(rawBody).digest('hex'),
      },
      body: rawBody,
    });
    await res.arrayBuffer();
    return { status: res.status, rawBody, signature };
  }

  private requireCallback(): string {
    if (!this.callbackUrl) throw new Error('The WhatsApp fake has no callbackUrl');
    return this.callbackUrl;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '/').split('?')[0];
    let body: unknown = raw;
    if (req.headers['content-type']?.startsWith('application/json')) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
    }
    const authorized = this.authorized(req);
    const record: WhatsappFakeRequest = {
      method: req.method ?? '',
      path,
      authorized,
      body,
      status: 0,
    };
    this.requests.push(record);
    const answer = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      res.writeHead(status, {
        'Content-Type': 'application/json; charset=UTF-8',
        'x-fb-trace-id': fbtraceId(),
        ...headers,
      });
      res.end(JSON.stringify(payload));
    };
    const fail = (code: GraphErrorCode, details?: string, message?: string, extra = {}) => {
      const known = GRAPH_ERRORS[code];
      const text = message ?? `(#${code}) ${known.title}`;
      answer(known.http, graphError(code, text, details ?? known.details), extra);
    };

    if (!authorized) {
      // Graph's answer to a missing, malformed, revoked or expired token; it has no error_data.
      return answer(401, {
        error: {
          message: 'Invalid OAuth access token - Cannot parse access token',
          type: 'OAuthException',
          code: 190,
          fbtrace_id: fbtraceId(),
        },
      });
    }
    const route = path.match(VERSION_PATH);
    if (!route || route[2] !== this.phoneNumberId || req.method !== 'POST') {
      const id = route?.[2] ?? path.split('/')[2] ?? '';
      return answer(400, {
        error: {
          message: `Unsupported ${(req.method ?? 'get').toLowerCase()} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
          type: 'GraphMethodException',
          code: 100,
          error_subcode: 33,
          fbtrace_id: fbtraceId(),
        },
      });
    }
    const failure = this.failures.shift();
    if (failure) {
      const headers: Record<string, string> = failure.retryAfter
        ? { 'Retry-After': String(failure.retryAfter) }
        : {};
      return fail(failure.code, failure.details, undefined, headers);
    }
    const refusal = this.send(
      typeof body === 'object' && body ? (body as Record<string, unknown>) : {},
    );
    if ('code' in refusal) return fail(refusal.code, refusal.details, refusal.message);
    answer(200, refusal.answer);
  }

  /** Validates a send as the Cloud API does and records it; the answer or the refusal. */
  private send(
    body: Record<string, unknown>,
  ):
    | { answer: Record<string, unknown> }
    | { code: GraphErrorCode; details?: string; message?: string } {
    const required = (name: string) => ({
      code: 100 as const,
      message: `(#100) The parameter ${name} is required.`,
    });
    if (body.messaging_product === undefined) return required('messaging_product');
    if (body.messaging_product !== 'whatsapp') {
      return {
        code: 100,
        message: `(#100) Param messaging_product must be one of {WHATSAPP} - got "${String(body.messaging_product)}".`,
      };
    }
    if (body.recipient_type !== undefined && body.recipient_type !== 'individual') {
      return {
        code: 100,
        message: `(#100) Param recipient_type must be one of {INDIVIDUAL, GROUP} - got "${String(body.recipient_type)}".`,
      };
    }
    if (typeof body.to !== 'string' || !body.to) return required('to');
    const waId = digits(body.to);
    if (!/^\+?[\d\s().-]+$/.test(body.to) || waId.length < 7 || waId.length > 15) {
      return { code: 100, details: 'Param to is not valid' };
    }
    const type = body.type ?? 'text';
    const opaque =
      typeof body.biz_opaque_callback_data === 'string' ? body.biz_opaque_callback_data : undefined;
    const m: WhatsappFakeMessage = {
      id: wamid(),
      waId,
      type: 'text',
      opaque,
      status: 'accepted',
      createdAt: new Date(),
      body,
    };

    if (type === 'text') {
      const text = body.text as { body?: unknown; preview_url?: unknown } | undefined;
      if (typeof text?.body !== 'string' || !text.body) return required("text['body']");
      if (text.body.length > MAX_TEXT_CHARS) {
        return {
          code: 100,
          details: `Param text['body'] must be at most ${MAX_TEXT_CHARS} characters long.`,
        };
      }
      if (text.preview_url !== undefined && typeof text.preview_url !== 'boolean') {
        return { code: 100, details: "Param text['preview_url'] must be a boolean." };
      }
      m.text = { body: text.body, preview_url: text.preview_url === true };
    } else if (type === 'template') {
      const parsed = parseTemplate(body.template);
      if ('code' in parsed) return parsed;
      const known = this.templates.find(
        (t) => t.name === parsed.name && t.language === parsed.language,
      );
      if (!known) {
        return {
          code: 132001,
          details: `template name (${parsed.name}) does not exist in ${parsed.language}`,
        };
      }
      if (known.bodyParameters !== parsed.parameters.length) {
        return {
          code: 132000,
          details: `body: number of localizable_params (${parsed.parameters.length}) does not match the expected number of params (${known.bodyParameters})`,
        };
      }
      m.type = 'template';
      m.template = parsed;
    } else {
      return {
        code: 100,
        message: `(#100) Param type must be one of {AUDIO, CONTACTS, DOCUMENT, IMAGE, INTERACTIVE, LOCATION, REACTION, STICKER, TEMPLATE, TEXT, VIDEO} - got "${String(type)}".`,
      };
    }

    if (this.states.get(waId) === 'blocked') return { code: 131026 };
    if (m.type === 'text' && !this.windowOpen(waId)) {
      return { code: 131047 };
    }
    this.messages.push(m);
    const sent: Record<string, unknown> = { id: m.id };
    if (m.type === 'template') sent.message_status = 'accepted';
    return {
      answer: {
        messaging_product: 'whatsapp',
        contacts: [{ input: body.to, wa_id: waId }],
        messages: [sent],
      },
    };
  }

  /** The bearer token of the request, compared in constant time. */
  private authorized(req: IncomingMessage): boolean {
    const header = req.headers.authorization ?? '';
    if (!header.startsWith('Bearer ')) return false;
    const given = Buffer.from(header.slice(7));
    const expected = Buffer.from(this.accessToken);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

/** A template object of a send: its name, language and body parameters, or Graph's refusal. */
function parseTemplate(
  raw: unknown,
):
  | { name: string; language: string; parameters: string[] }
  | { code: GraphErrorCode; details?: string; message?: string } {
  const t = raw as
    { name?: unknown; language?: { code?: unknown }; components?: unknown } | undefined;
  if (typeof t?.name !== 'string' || !t.name) {
    return { code: 100, message: "(#100) The parameter template['name'] is required." };
  }
  if (typeof t.language?.code !== 'string' || !t.language.code) {
    return { code: 100, message: "(#100) The parameter template['language']['code'] is required." };
  }
  const parameters: string[] = [];
  if (t.components !== undefined) {
    if (!Array.isArray(t.components)) {
      return { code: 100, details: "Param template['components'] must be an array." };
    }
    for (const c of t.components as { type?: unknown; parameters?: unknown }[]) {
      if (!['header', 'body', 'button', 'footer'].includes(String(c?.type))) {
        return { code: 100, details: "Param template['components'][0]['type'] is not valid." };
      }
      if (c.type !== 'body') continue;
      for (const p of (Array.isArray(c.parameters) ? c.parameters : []) as {
        type?: unknown;
        text?: unknown;
      }[]) {
        if (p?.type !== 'text' || typeof p.text !== 'string' || !p.text) {
          return { code: 131009, details: 'body: a text parameter needs a non-empty text' };
        }
        parameters.push(p.text);
      }
    }
  }
  return { name: t.name, language: t.language.code, parameters };
}

/** Graph's error body (docs/graph-api/guides/error-handling); v16.0+ sends no error_subcode. */
function graphError(code: number, message: string, details?: string) {
  return {
    error: {
      message,
      type: 'OAuthException',
      code,
      error_data: {
        messaging_product: 'whatsapp',
        details: details ?? message.replace(/^\(#\d+\) /, ''),
      },
      fbtrace_id: fbtraceId(),
    },
  };
}
