// A loopback service speaking the generic `http` provider protocol (http.adapter.ts): it takes the
// signed JSON POST of a message, refuses a request without a valid Standard Webhooks signature
// (401), records what it took, answers the statuses a test sets, and posts signed status and
// inbound callbacks back. Signatures per the Standard Webhooks specification (standardwebhooks.com),
// made and checked with the platform's one signer.
import {
  standardWebhookHeaders,
  verifyStandardWebhook,
} from '@app/domain/channels/providers/standard-webhooks';
import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const HTTP_RECEIVER_PATH = '/messages';

export interface HttpReceiverMessage {
  /** The id the receiver answered with (its own, unless told to answer none). */
  receiverId: string | null;
  /** The JSON body as received: id, channel, to, content, statusCallbackUrl (platform). */
  body: {
    id: string;
    channel: string;
    to: string;
    content: Record<string, unknown>;
    statusCallbackUrl: string;
    platform?: string;
  };
  headers: IncomingMessage['headers'];
}

export interface HttpReceiverAnswer {
  status: number;
  /** A JSON body; the default for a 2xx is `{"id": "<new id>"}`. */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface HttpReceiverOptions {
  secret?: string;
  port?: number;
}

export class HttpReceiver {
  readonly secret: string;
  /** Messages taken (answered 2xx), in order. */
  readonly messages: HttpReceiverMessage[] = [];
  /** Every request that reached the receiver, refused or not. */
  requests = 0;
  /** Requests refused for their signature. */
  refused = 0;
  /** Whether a 2xx answer names the message (`{"id"}`) or says nothing (`{}`). */
  answerIds = true;
  private server?: Server;
  private port: number;
  private readonly answers: HttpReceiverAnswer[] = [];

  constructor(options: HttpReceiverOptions = {}) {
    this.secret = options.secret ?? `whsec_${randomBytes(32).toString('base64')}`;
    this.port = options.port ?? 0;
  }

  static async start(options?: HttpReceiverOptions): Promise<HttpReceiver> {
    const receiver = new HttpReceiver(options);
    await receiver.start();
    return receiver;
  }

  /** What an account's `settings.url` is set to. */
  get url(): string {
    return `http://127.0.0.1:${this.port}${HTTP_RECEIVER_PATH}`;
  }

  /** Listens (again, on the same port after `stop`). */
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

  /** The next `count` validly signed requests get `answer` instead of a 202. */
  answerNext(count: number, answer: HttpReceiverAnswer): void {
    for (let i = 0; i < count; i++) this.answers.push(answer);
  }

  message(id: string): HttpReceiverMessage | undefined {
    return this.messages.find((m) => m.receiverId === id || m.body.id === id);
  }

  /** Posts a signed `message.status` for one message to its `statusCallbackUrl`. */
  async postStatus(
    id: string,
    status: string,
    extra: { code?: string; description?: string } = {},
  ): Promise<{ status: number; body: string }> {
    const m = this.message(id);
    if (!m) throw new Error(`No message ${id}`);
    const data = { id: m.receiverId ?? m.body.id, status, ...extra };
    return this.post(m.body.statusCallbackUrl, { type: 'message.status', data });
  }

  /** Posts a signed `message.inbound` to `url`. */
  async postInbound(
    url: string,
    data: { from: string; to: string; text: string; id?: string },
  ): Promise<{ status: number; body: string }> {
    const id = data.id ?? `in_${randomBytes(8).toString('hex')}`;
    return this.post(url, { type: 'message.inbound', data: { ...data, id } });
  }

  /** Posts any signed JSON body to `url`. */
  async post(url: string, payload: unknown): Promise<{ status: number; body: string }> {
    const body = JSON.stringify(payload);
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...standardWebhookHeaders(this.secret, body) },
      body,
    });
    await res.arrayBuffer();
    return { status: res.status, body };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.requests += 1;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    if ((req.url ?? '/').split('?')[0] !== HTTP_RECEIVER_PATH) {
      return json(res, 404, { code: 'not_found', message: 'No such path' });
    }
    if (req.method !== 'POST') return json(res, 405, { code: 'method', message: 'POST only' });
    const headers: Record<string, string | undefined> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v[0] : v;
    if (!verifyStandardWebhook(this.secret, headers, raw)) {
      this.refused += 1;
      return json(res, 401, { code: 'bad_signature', message: 'Invalid signature' });
    }
    const answer = this.answers.shift();
    if (answer && (answer.status < 200 || answer.status >= 300)) {
      return json(res, answer.status, answer.body ?? {}, answer.headers);
    }
    let body: HttpReceiverMessage['body'];
    try {
      body = JSON.parse(raw.toString('utf8')) as HttpReceiverMessage['body'];
    } catch {
      return json(res, 400, { code: 'bad_json', message: 'The body is not JSON' });
    }
    if (!body?.id || !body.channel || !body.to || !body.content || !body.statusCallbackUrl) {
      return json(res, 400, { code: 'missing_field', message: 'A required field is missing' });
    }
    const given = (answer?.body as { id?: unknown } | undefined)?.id;
    const receiverId =
      typeof given === 'string'
        ? given
        : this.answerIds && !answer?.body
          ? `rcv_${randomBytes(8).toString('hex')}`
          : null;
    this.messages.push({ receiverId, body, headers: req.headers });
    json(
      res,
      answer?.status ?? 202,
      answer?.body ?? (receiverId ? { id: receiverId } : {}),
      answer?.headers,
    );
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
