// A loopback Twilio Programmable Messaging API (REST 2010-04-01) for tests and development: the
// Messages resource with Twilio's basic auth, form encoding, validation codes and error bodies, its
// documented test-credential magic numbers, its default STOP/START handling, and the status and
// incoming-message webhooks it posts, signed with X-Twilio-Signature. Sources: twilio.com/docs
// (messaging/api/message-resource, api/errors/*, iam/test-credentials, usage/webhooks/
// webhooks-security, messaging/guides/webhook-request, outbound-message-status-in-status-callbacks).
import { countSmsSegments } from '@app/domain/channels/sms-segments';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const TWILIO_API_VERSION = '2010-04-01';

/**
 * Twilio's test-credential magic numbers (twilio.com/docs/iam/test-credentials): a `From` or `To`
 * listed here gets the error Twilio documents for it; every other E.164 `To` is accepted.
 */
export const TWILIO_MAGIC = {
  validFrom: '+15005550006',
  invalidFrom: '+15005550001', // 21212
  unownedFrom: '+15005550007', // 21606
  fullQueueFrom: '+15005550008', // 21611
  invalidTo: '+15005550001', // 21211
  unroutableTo: '+15005550002', // 21612
  noRegionPermissionTo: '+15005550003', // 21408
  unsubscribedTo: '+15005550004', // 21610
  notMobileTo: '+15005550009', // 21614
} as const;

/** Twilio's default opt-out and opt-in keywords (any case, the whole trimmed body). */
const OPT_OUT = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT']);
const OPT_IN = new Set(['START', 'UNSTOP', 'YES']);

const E164 = /^\+[1-9]\d{1,14}$/;
const MAX_BODY_CHARS = 1600;

export interface TwilioFakeMessage {
  sid: string;
  to: string;
  from: string | null;
  messagingServiceSid: string | null;
  body: string;
  mediaUrls: string[];
  statusCallback: string | null;
  status: string;
  numSegments: number;
  errorCode: number | null;
  dateCreated: Date;
  /** Every form parameter of the request, as received. */
  params: Record<string, string>;
}

export interface TwilioFakeOptions {
  accountSid?: string;
  authToken?: string;
  /** The port to listen on (default: a free one). */
  port?: number;
}

export interface TwilioCallbackResult {
  status: number;
  /** The form parameters posted, and the signature sent with them. */
  params: Record<string, string>;
  signature: string;
}

/** `X-Twilio-Signature`: base64 HMAC-SHA1 of the URL followed by each param's name and value in name order. */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>) {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, k) => acc + k + params[k], url);
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

const sid = (prefix: string) => prefix + randomBytes(16).toString('hex');
/** RFC 2822 in GMT, as the Message resource shows its dates. */
const rfc2822 = (d: Date) => d.toUTCString().replace('GMT', '+0000');

export class TwilioFake {
  readonly accountSid: string;
  readonly authToken: string;
  /** Accepted messages, in order. */
  readonly messages: TwilioFakeMessage[] = [];
  /** Every request that reached the fake, refused or not. */
  requests = 0;
  private server?: Server;
  private port = 0;
  private readonly failures: { status: 429 | 500 | 503; retryAfter?: number }[] = [];
  private readonly optedOut = new Set<string>([TWILIO_MAGIC.unsubscribedTo]);

  constructor(options: TwilioFakeOptions = {}) {
    this.accountSid = options.accountSid ?? sid('AC');
    this.authToken = options.authToken ?? randomBytes(16).toString('hex');
    this.port = options.port ?? 0;
  }

  static async start(options?: TwilioFakeOptions): Promise<TwilioFake> {
    const fake = new TwilioFake(options);
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

  /** The next `count` requests are answered `status` (429 with Twilio's 20429 body and `Retry-After`). */
  failNext(count: number, status: 429 | 500 | 503, retryAfterSeconds?: number): void {
    for (let i = 0; i < count; i++) this.failures.push({ status, retryAfter: retryAfterSeconds });
  }

  /** Marks a number as having texted STOP: sends to it answer 21610 until it texts START. */
  optOut(number: string): void {
    this.optedOut.add(number);
  }

  isOptedOut(number: string): boolean {
    return this.optedOut.has(number);
  }

  message(messageSid: string): TwilioFakeMessage | undefined {
    return this.messages.find((m) => m.sid === messageSid);
  }

  /**
   * Moves a message to `status` and posts its status callback as Twilio does: form-encoded,
   * `ErrorCode` on `failed`/`undelivered`, `RawDlrDoneDate` on `delivered`/`undelivered`, signed.
   */
  async deliver(
    messageSid: string,
    status: string,
    errorCode?: number,
  ): Promise<TwilioCallbackResult> {
    const m = this.message(messageSid);
    if (!m) throw new Error(`No message ${messageSid}`);
    if (!m.statusCallback) throw new Error(`Message ${messageSid} has no StatusCallback`);
    m.status = status;
    const failed = status === 'failed' || status === 'undelivered';
    m.errorCode = failed ? (errorCode ?? 30008) : null;
    const params: Record<string, string> = {
      SmsSid: m.sid,
      SmsStatus: status,
      MessageStatus: status,
      To: m.to,
      MessageSid: m.sid,
      AccountSid: this.accountSid,
      From: m.from ?? TWILIO_MAGIC.validFrom,
      ApiVersion: TWILIO_API_VERSION,
    };
    if (m.messagingServiceSid) params.MessagingServiceSid = m.messagingServiceSid;
    if (failed) params.ErrorCode = String(m.errorCode);
    if (status === 'delivered' || status === 'undelivered') {
      params.RawDlrDoneDate = new Date().toISOString().replace(/\D/g, '').slice(2, 12);
    }
    return this.post(m.statusCallback, params);
  }

  /**
   * A text from `from` to our number `to`, posted to the number's incoming-message webhook `url`.
   * Twilio's own opt-out handling applies first: STOP-words opt the sender out, START-words back in.
   */
  async inbound(
    from: string,
    to: string,
    body: string,
    url: string,
  ): Promise<TwilioCallbackResult> {
    const keyword = body.trim().toUpperCase();
    if (OPT_OUT.has(keyword)) this.optedOut.add(from);
    if (OPT_IN.has(keyword)) this.optedOut.delete(from);
    const messageSid = sid('SM');
    const params: Record<string, string> = {
      ToCountry: '',
      ToState: '',
      SmsMessageSid: messageSid,
      NumMedia: '0',
      ToCity: '',
      FromZip: '',
      SmsSid: messageSid,
      FromState: '',
      SmsStatus: 'received',
      FromCity: '',
      Body: body,
      FromCountry: '',
      To: to,
      ToZip: '',
      NumSegments: String(Math.max(1, countSmsSegments(body).segments)),
      MessageSid: messageSid,
      AccountSid: this.accountSid,
      From: from,
      ApiVersion: TWILIO_API_VERSION,
    };
    return this.post(url, params);
  }

  private async post(url: string, params: Record<string, string>): Promise<TwilioCallbackResult> {
    const signature = twilioSignature(this.authToken, url, params);
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        'User-Agent': 'TwilioProxy/1.1',
        'X-Twilio-Signature': signature,
        'I-Twilio-Idempotency-Token': randomBytes(16).toString('hex'),
      },
      body: new URLSearchParams(params).toString(),
    });
    await res.arrayBuffer();
    return { status: res.status, params, signature };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.requests += 1;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '/').split('?')[0];
    const base = `/${TWILIO_API_VERSION}/Accounts/${this.accountSid}`;

    if (!this.authorized(req)) return error(res, 401, 20003, 'Authenticate');
    const failure = this.failures.shift();
    if (failure?.status === 429) {
      const headers: Record<string, string> = failure.retryAfter
        ? { 'Retry-After': String(failure.retryAfter) }
        : {};
      return error(res, 429, 20429, 'Too Many Requests', headers);
    }
    if (failure) {
      const code = failure.status === 503 ? 20503 : 20500;
      return error(
        res,
        failure.status,
        code,
        failure.status === 503 ? 'Service Unavailable' : 'Internal Server Error',
      );
    }

    if (path === `${base}/Messages.json`) {
      if (req.method === 'POST') return this.create(res, req.headers['content-type'], raw);
      if (req.method === 'GET') return json(res, 200, this.page(base));
      return error(res, 405, 20004, 'Method not allowed');
    }
    const one = path.match(new RegExp(`^${base}/Messages/((?:SM|MM)[0-9a-f]{32})\\.json$`));
    const m = one && this.message(one[1]);
    if (m && req.method === 'GET') return json(res, 200, this.resource(m));
    return error(res, 404, 20404, `The requested resource ${path} was not found`);
  }

  /** HTTP basic auth with the account SID of the path and its auth token. */
  private authorized(req: IncomingMessage): boolean {
    const header = req.headers.authorization ?? '';
    if (!header.startsWith('Basic ')) return false;
    const given = Buffer.from(header.slice(6), 'base64');
    const expected = Buffer.from(`${this.accountSid}:${this.authToken}`);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private create(res: ServerResponse, contentType: string | undefined, raw: string): void {
    // A body that is not form-encoded carries no parameters Twilio can read: `To` is missing.
    const form = contentType?.startsWith('application/x-www-form-urlencoded')
      ? new URLSearchParams(raw)
      : new URLSearchParams();
    const params = Object.fromEntries(form);
    const to = form.get('To') ?? '';
    const from = form.get('From') ?? '';
    const service = form.get('MessagingServiceSid') ?? '';
    const body = form.get('Body') ?? '';
    const mediaUrls = form.getAll('MediaUrl');

    if (!to) return error(res, 400, 21604, "A 'To' phone number is required.");
    if (!E164.test(to) || to === TWILIO_MAGIC.invalidTo) {
      return error(res, 400, 21211, `The 'To' number ${to} is not a valid phone number.`);
    }
    if (!from && !service) {
      return error(
        res,
        400,
        21603,
        "A 'From' or 'MessagingServiceSid' parameter is required to send a message.",
      );
    }
    if (
      from &&
      (from === TWILIO_MAGIC.invalidFrom || !/^(\+[1-9]\d{1,14}|[A-Za-z0-9 ]{1,11})$/.test(from))
    ) {
      return error(
        res,
        400,
        21212,
        `The 'From' number ${from} is not a valid phone number, shortcode, or alphanumeric sender ID.`,
      );
    }
    if (from === TWILIO_MAGIC.unownedFrom) {
      return error(
        res,
        400,
        21606,
        `The 'From' phone number provided (${from}) is not a valid message-capable Twilio phone number for this destination/account.`,
      );
    }
    if (from === TWILIO_MAGIC.fullQueueFrom) {
      return error(
        res,
        400,
        21611,
        `This 'From' number has exceeded the maximum number of queued messages`,
      );
    }
    if (!body && mediaUrls.length === 0) return error(res, 400, 21602, 'Message body is required.');
    if (body.length > MAX_BODY_CHARS) {
      return error(
        res,
        400,
        21617,
        'The concatenated message body exceeds the 1600 character limit.',
      );
    }
    if (to === TWILIO_MAGIC.unroutableTo) {
      return error(
        res,
        400,
        21612,
        `The 'To' phone number: ${to}, is not currently reachable using the 'From' phone number: ${from} via SMS.`,
      );
    }
    if (to === TWILIO_MAGIC.noRegionPermissionTo) {
      return error(
        res,
        400,
        21408,
        `Permission to send an SMS has not been enabled for the region indicated by the 'To' number: ${to}.`,
      );
    }
    if (to === TWILIO_MAGIC.notMobileTo) {
      return error(res, 400, 21614, `'To' number is not a valid mobile number`);
    }
    if (this.optedOut.has(to))
      return error(res, 400, 21610, 'Attempt to send to unsubscribed recipient');

    const segments = body ? countSmsSegments(body).segments : 1;
    const m: TwilioFakeMessage = {
      // Twilio names an MMS `MM…`, an SMS `SM…`.
      sid: sid(mediaUrls.length ? 'MM' : 'SM'),
      to,
      from: from || null,
      messagingServiceSid: service || null,
      body,
      mediaUrls,
      statusCallback: form.get('StatusCallback'),
      // Through a Messaging Service the message is `accepted` until a sender is chosen.
      status: service ? 'accepted' : 'queued',
      numSegments: service ? 0 : segments,
      errorCode: null,
      dateCreated: new Date(),
      params,
    };
    this.messages.push(m);
    json(res, 201, this.resource(m));
  }

  /** The Message resource as the API shows it. */
  resource(m: TwilioFakeMessage): Record<string, unknown> {
    const uri = `/${TWILIO_API_VERSION}/Accounts/${this.accountSid}/Messages/${m.sid}`;
    return {
      account_sid: this.accountSid,
      api_version: TWILIO_API_VERSION,
      body: m.body,
      date_created: rfc2822(m.dateCreated),
      date_sent: null,
      date_updated: rfc2822(m.dateCreated),
      direction: 'outbound-api',
      error_code: m.errorCode,
      error_message: null,
      from: m.from,
      messaging_service_sid: m.messagingServiceSid,
      num_media: String(m.mediaUrls.length),
      num_segments: String(m.numSegments),
      price: null,
      price_unit: 'USD',
      sid: m.sid,
      status: m.status,
      subresource_uris: { media: `${uri}/Media.json` },
      to: m.to,
      uri: `${uri}.json`,
    };
  }

  private page(base: string): Record<string, unknown> {
    const uri = `${base}/Messages.json?PageSize=50&Page=0`;
    return {
      end: Math.max(0, this.messages.length - 1),
      first_page_uri: uri,
      messages: [...this.messages].reverse().map((m) => this.resource(m)),
      next_page_uri: null,
      page: 0,
      page_size: 50,
      previous_page_uri: null,
      start: 0,
      uri,
    };
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

/** Twilio's REST error body. */
function error(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
) {
  json(
    res,
    status,
    { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status },
    headers,
  );
}
