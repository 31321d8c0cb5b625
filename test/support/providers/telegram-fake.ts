// A loopback Telegram Bot API for tests and development: `GET|POST /bot<token>/<method>` with the
// parameters in the query string, a form-urlencoded or a JSON body, answered `{ok, result}` or
// `{ok:false, error_code, description, parameters?}` with Telegram's own descriptions. Methods:
// getMe, sendMessage (text 1..4096 characters after entity parsing, `parse_mode` HTML, MarkdownV2
// or Markdown parsed roughly as Telegram does and refused with its "can't parse entities" errors),
// setWebhook, deleteWebhook, getWebhookInfo. Flood control answers 429 with
// `parameters.retry_after`: about one message a second to one chat and about 30 a second overall.
// Its users open the bot's deep link, text it, block and unblock it; each of these is an Update
// posted to the webhook with `X-Telegram-Bot-Api-Secret-Token`.
// Sources: core.telegram.org/bots/api (#making-requests, #formatting-options, #sendmessage,
// #setwebhook, #getwebhookinfo, #update, #chatmemberupdated, #responseparameters),
// core.telegram.org/bots/features#deep-linking, core.telegram.org/bots/faq (#my-bot-is-hitting-
// limits-how-do-i-avoid-this), core.telegram.org/bots/webhooks (#testing-your-bot-with-updates), and
// the Bot API server's own messages (github.com/tdlib/telegram-bot-api: Client.cpp,
// ClientManager.cpp, WebhookActor.cpp; tdlib MessageEntity.cpp for the entity parsers' errors).
import { randomBytes, randomInt } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Update types a webhook gets when `allowed_updates` was never given (Telegram's default). */
const DEFAULT_ALLOWED_UPDATES = [
  'message',
  'edited_message',
  'channel_post',
  'edited_channel_post',
  'business_connection',
  'business_message',
  'edited_business_message',
  'deleted_business_messages',
  'inline_query',
  'chosen_inline_result',
  'callback_query',
  'shipping_query',
  'pre_checkout_query',
  'purchased_paid_media',
  'poll',
  'poll_answer',
  'my_chat_member',
  'chat_join_request',
  'chat_boost',
  'removed_chat_boost',
];
/** Every update type `allowed_updates` may name (the default plus the opt-in ones). */
const UPDATE_TYPES = new Set([
  ...DEFAULT_ALLOWED_UPDATES,
  'chat_member',
  'message_reaction',
  'message_reaction_count',
]);
const WEBHOOK_PORTS = new Set([443, 80, 88, 8443]);
const MAX_MESSAGE_LENGTH = 4096;
/** A deep-link `start` parameter (core.telegram.org/bots/features#deep-linking). */
const START_PAYLOAD = /^[A-Za-z0-9_-]{1,64}$/;

export interface TelegramFakeOptions {
  /** The bot's token (default: a new one in BotFather's format). */
  botToken?: string;
  /** The bot's username (default `mp_fake_bot`). */
  botUsername?: string;
  /** The port to listen on (default: a free one). */
  port?: number;
  /**
   * Accepts `http://` webhook URLs on any port, as the Bot API server run with `--local` does;
   * Telegram's public API takes only `https://` on ports 443, 80, 88 and 8443. Loopback tests,
   * whose receivers listen on plain HTTP, set this.
   */
  localMode?: boolean;
  /** Messages a second one chat takes before 429 (Telegram: about 1); 0 turns the limit off. */
  perChatPerSecond?: number;
  /** Messages a second the bot sends overall before 429 (Telegram: about 30); 0 turns it off. */
  perSecond?: number;
  /** The fake's clock in milliseconds (flood control, dates). */
  now?: () => number;
}

export interface TelegramFakeUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  last_name?: string;
  username?: string;
  language_code?: string;
}

/** A chat the bot knows: a person's private chat with it, or a group it was added to. */
export interface TelegramFakeChat {
  id: number;
  type: 'private' | 'group' | 'supergroup';
  /** The person of a private chat. */
  user?: TelegramFakeUser;
  title?: string;
  /** The person blocked the bot (private chats): sends answer 403 until they restart it. */
  blocked: boolean;
  lastMessageId: number;
}

export interface TelegramFakeMessage {
  chatId: number;
  messageId: number;
  /** The text as shown, markup parsed away. */
  text: string;
  entities: TelegramEntity[];
  parseMode: string | null;
  date: number;
  /** Every parameter of the request, as strings (JSON values stringified as Telegram reads them). */
  params: Record<string, string>;
}

export interface TelegramFakeRequest {
  at: Date;
  httpMethod: string;
  /** The API method as written in the path (Telegram's method names are case-insensitive). */
  method: string;
  token: string;
  contentType: string | null;
  params: Record<string, string>;
  /** The HTTP status answered. */
  status: number;
}

export interface TelegramWebhook {
  url: string;
  secretToken: string;
  allowedUpdates: string[] | null;
  maxConnections: number;
  lastErrorDate?: number;
  lastErrorMessage?: string;
}

export interface TelegramEntity {
  type: string;
  offset: number;
  length: number;
  url?: string;
  language?: string;
  custom_emoji_id?: string;
}

/** One Update posted to the webhook (or queued when none is set or the post failed). */
export interface TelegramDelivery {
  update: Record<string, unknown>;
  /** The webhook's HTTP status; null when nothing was posted or no answer came. */
  status: number | null;
  /** The secret token header sent with it. */
  secretToken?: string;
}

type Failure = { status: 429; retryAfter: number } | { status: 500 | 502 };

class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
    readonly parameters?: Record<string, unknown>,
  ) {
    super(description);
  }
}

/** A new token in BotFather's format: the bot's numeric id, a colon, 35 characters. */
export function newBotToken(): string {
  return `${randomInt(1_000_000_000, 8_000_000_000)}:AA${randomBytes(25).toString('base64url').slice(0, 33)}`;
}

export class TelegramFake {
  readonly botToken: string;
  readonly botUsername: string;
  readonly botId: number;
  /** Sent messages, in order. */
  readonly messages: TelegramFakeMessage[] = [];
  /** Every request that reached the fake, refused or not. */
  readonly requests: TelegramFakeRequest[] = [];
  /** Updates posted to the webhook, in order, with the answer each got. */
  readonly deliveries: TelegramDelivery[] = [];
  /** Updates not yet taken by a webhook (none set, or the post failed). */
  readonly pending: Record<string, unknown>[] = [];
  readonly chats = new Map<number, TelegramFakeChat>();
  webhook: TelegramWebhook | null = null;
  localMode: boolean;
  perChatPerSecond: number;
  perSecond: number;
  private readonly now: () => number;
  private server?: Server;
  private port: number;
  private readonly failures: Failure[] = [];
  private readonly sentAt: { chatId: number; at: number }[] = [];
  private nextUpdateId = randomInt(100_000, 900_000);
  private nextUserId = randomInt(100_000_000, 900_000_000);

  constructor(options: TelegramFakeOptions = {}) {
    this.botToken = options.botToken ?? newBotToken();
    this.botUsername = options.botUsername ?? 'mp_fake_bot';
    this.botId = Number(this.botToken.split(':')[0]);
    this.port = options.port ?? 0;
    this.localMode = options.localMode ?? false;
    this.perChatPerSecond = options.perChatPerSecond ?? 1;
    this.perSecond = options.perSecond ?? 30;
    this.now = options.now ?? Date.now;
  }

  static async start(options?: TelegramFakeOptions): Promise<TelegramFake> {
    const fake = new TelegramFake(options);
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
   * The next `count` requests are answered `status`: 429 with `retry_after` (default 5 s), 500 as
   * the Bot API's JSON error, 502 as the HTML page of Telegram's front proxy.
   */
  failNext(count: number, status: 429 | 500 | 502, retryAfterSeconds = 5): void {
    for (let i = 0; i < count; i++) {
      this.failures.push(status === 429 ? { status, retryAfter: retryAfterSeconds } : { status });
    }
  }

  /** The bot as getMe shows it. */
  get me(): TelegramFakeUser & Record<string, unknown> {
    return {
      id: this.botId,
      is_bot: true,
      first_name: 'Fake Bot',
      username: this.botUsername,
      can_join_groups: true,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
      can_connect_to_business: false,
      has_main_web_app: false,
    };
  }

  /** `https://t.me/<bot>?start=<payload>`: the link a person opens. */
  deepLink(payload: string): string {
    return `https://t.me/${this.botUsername}?start=${payload}`;
  }

  /** A new person (not yet in any chat with the bot). */
  newUser(over: Partial<TelegramFakeUser> = {}): TelegramFakeUser {
    const id = this.nextUserId++;
    return { id, is_bot: false, first_name: `Person ${id}`, ...over };
  }

  /**
   * A person opens the bot's deep link and presses START: their private chat with the bot exists
   * from then on, and the bot gets the message `/start <payload>`. A person who had blocked the
   * bot unblocks it so (a `my_chat_member` update from `kicked` to `member` comes first).
   */
  async openDeepLink(
    payload: string | null,
    user: TelegramFakeUser = this.newUser(),
  ): Promise<{ chatId: number; deliveries: TelegramDelivery[] }> {
    if (payload !== null && !START_PAYLOAD.test(payload)) {
      throw new Error('A start parameter is 1-64 characters of A-Z, a-z, 0-9, _ and -');
    }
    const deliveries: TelegramDelivery[] = [];
    const chat = this.chats.get(user.id);
    if (chat?.blocked) deliveries.push(await this.unblock(user.id));
    const text = payload === null ? '/start' : `/start ${payload}`;
    deliveries.push(await this.sendText(user, text));
    return { chatId: user.id, deliveries };
  }

  /** A person sends the bot a text (a private chat is opened for a new person). */
  async sendText(user: TelegramFakeUser | number, text: string): Promise<TelegramDelivery> {
    const chat = this.privateChat(user);
    const message: Record<string, unknown> = {
      message_id: ++chat.lastMessageId,
      from: chat.user,
      chat: this.chatObject(chat),
      date: this.unixNow(),
      text,
    };
    const command = /^\/[A-Za-z0-9_]{1,32}(@[A-Za-z0-9_]{5,32})?/.exec(text);
    if (command) message.entities = [{ offset: 0, length: command[0].length, type: 'bot_command' }];
    return this.post({ update_id: this.nextUpdateId++, message });
  }

  /** A person blocks the bot: `my_chat_member` with the bot `kicked`; sends answer 403 after. */
  async block(chatId: number): Promise<TelegramDelivery> {
    return this.memberChange(chatId, 'member', 'kicked');
  }

  /** A person who blocked the bot restarts it: `my_chat_member` from `kicked` to `member`. */
  async unblock(chatId: number): Promise<TelegramDelivery> {
    return this.memberChange(chatId, 'kicked', 'member');
  }

  /** A supergroup the bot was added to, reachable by its negative id. */
  addGroup(title = 'Fake group'): TelegramFakeChat {
    const id = -Number(`100${randomInt(1_000_000_000, 9_999_999_999)}`);
    const chat: TelegramFakeChat = {
      id,
      type: 'supergroup',
      title,
      blocked: false,
      lastMessageId: 0,
    };
    this.chats.set(id, chat);
    return chat;
  }

  /** Posts the queued updates to the webhook again (Telegram retries them on its own schedule). */
  async retryPending(): Promise<TelegramDelivery[]> {
    const queued = this.pending.splice(0);
    const out: TelegramDelivery[] = [];
    for (const update of queued) out.push(await this.post(update));
    return out;
  }

  /** Forgets the flood-control history (a test that sends fast without testing the limits). */
  resetFloodControl(): void {
    this.sentAt.length = 0;
  }

  private privateChat(user: TelegramFakeUser | number): TelegramFakeChat {
    const id = typeof user === 'number' ? user : user.id;
    let chat = this.chats.get(id);
    if (!chat) {
      if (typeof user === 'number') throw new Error(`No chat ${user}`);
      chat = { id, type: 'private', user, blocked: false, lastMessageId: 0 };
      this.chats.set(id, chat);
    }
    return chat;
  }

  private async memberChange(
    chatId: number,
    from: 'member' | 'kicked',
    to: 'member' | 'kicked',
  ): Promise<TelegramDelivery> {
    const chat = this.chats.get(chatId);
    if (!chat?.user) throw new Error(`No private chat ${chatId}`);
    chat.blocked = to === 'kicked';
    const date = this.unixNow();
    const bot = {
      id: this.botId,
      is_bot: true,
      first_name: 'Fake Bot',
      username: this.botUsername,
    };
    const member = (status: string) =>
      status === 'kicked' ? { user: bot, status, until_date: 0 } : { user: bot, status };
    return this.post({
      update_id: this.nextUpdateId++,
      my_chat_member: {
        chat: this.chatObject(chat),
        from: chat.user,
        date,
        old_chat_member: member(from),
        new_chat_member: member(to),
      },
    });
  }

  private chatObject(chat: TelegramFakeChat): Record<string, unknown> {
    if (chat.type !== 'private') return { id: chat.id, title: chat.title, type: chat.type };
    const u = chat.user!;
    return {
      id: chat.id,
      first_name: u.first_name,
      ...(u.last_name ? { last_name: u.last_name } : {}),
      ...(u.username ? { username: u.username } : {}),
      type: 'private',
    };
  }

  private unixNow(): number {
    return Math.floor(this.now() / 1000);
  }

  /** Posts one update as Telegram does, or queues it; drops types the webhook did not ask for. */
  private async post(update: Record<string, unknown>): Promise<TelegramDelivery> {
    const type = Object.keys(update).find((k) => k !== 'update_id')!;
    const allowed = this.webhook?.allowedUpdates ?? DEFAULT_ALLOWED_UPDATES;
    const hook = this.webhook;
    if (hook && !allowed.includes(type)) return { update, status: null };
    if (!hook) {
      this.pending.push(update);
      return { update, status: null };
    }
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (hook.secretToken) headers['X-Telegram-Bot-Api-Secret-Token'] = hook.secretToken;
    let status: number | null = null;
    try {
      const res = await fetch(hook.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(update),
        redirect: 'manual',
      });
      await res.arrayBuffer();
      status = res.status;
      if (status < 200 || status > 299) {
        hook.lastErrorMessage = `Wrong response from the webhook: ${status} ${res.statusText}`;
      }
    } catch {
      hook.lastErrorMessage = 'Connection refused';
    }
    if (status === null || status < 200 || status > 299) {
      hook.lastErrorDate = this.unixNow();
      this.pending.push(update);
    }
    const delivery: TelegramDelivery = {
      update,
      status,
      secretToken: hook.secretToken || undefined,
    };
    this.deliveries.push(delivery);
    return delivery;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://fake');
    const match = /^\/bot([^/]*)\/([^/]*)$/.exec(url.pathname);
    const record: TelegramFakeRequest = {
      at: new Date(this.now()),
      httpMethod: req.method ?? 'GET',
      method: match?.[2] ?? '',
      token: match?.[1] ?? '',
      contentType: req.headers['content-type'] ?? null,
      params: {},
      status: 0,
    };
    this.requests.push(record);
    const answer = (status: number, body: string, contentType = 'application/json') => {
      record.status = status;
      res.writeHead(status, {
        'Content-Type': contentType,
        'Content-Length': Buffer.byteLength(body),
      });
      res.end(body);
    };
    const fail = (e: ApiError) => {
      const body: Record<string, unknown> = {
        ok: false,
        error_code: e.code,
        description: e.description,
      };
      if (e.parameters) body.parameters = e.parameters;
      answer(e.code, JSON.stringify(body));
    };
    try {
      if (!match) throw new ApiError(404, 'Not Found');
      this.authorize(decodeURIComponent(match[1]));
      const failure = this.failures.shift();
      if (failure?.status === 429) {
        throw new ApiError(429, `Too Many Requests: retry after ${failure.retryAfter}`, {
          retry_after: failure.retryAfter,
        });
      }
      if (failure?.status === 500) throw new ApiError(500, 'Internal Server Error');
      if (failure?.status === 502) return answer(502, NGINX_502, 'text/html');
      record.params = readParams(url.searchParams, record.contentType, Buffer.concat(chunks));
      const result = this.call(match[2].toLowerCase(), record.params);
      const body: Record<string, unknown> = { ok: true, result: result.result };
      if (result.description) body.description = result.description;
      answer(200, JSON.stringify(body));
    } catch (e) {
      if (e instanceof ApiError) return fail(e);
      throw e;
    }
  }

  /** The Bot API server's token checks: a malformed token, then a token of no bot. */
  private authorize(token: string): void {
    const colon = token.indexOf(':');
    const id = Number(token.slice(0, colon));
    if (
      colon < 1 ||
      token[0] === '0' ||
      token.length > 80 ||
      !/^\d+$/.test(token.slice(0, colon)) ||
      id <= 0 ||
      id >= 2 ** 54
    ) {
      throw new ApiError(401, 'Unauthorized: invalid token specified');
    }
    if (token !== this.botToken) throw new ApiError(401, 'Unauthorized');
  }

  private call(
    method: string,
    params: Record<string, string>,
  ): { result: unknown; description?: string } {
    switch (method) {
      case 'getme':
        return { result: this.me };
      case 'sendmessage':
        return { result: this.sendMessage(params) };
      case 'setwebhook':
        return this.setWebhook(params);
      case 'deletewebhook':
        return this.deleteWebhook(params);
      case 'getwebhookinfo':
        return { result: this.webhookInfo() };
      default:
        throw new ApiError(404, 'Not Found: method not found');
    }
  }

  private sendMessage(params: Record<string, string>): Record<string, unknown> {
    const chatId = params.chat_id ?? '';
    if (!chatId) throw new ApiError(400, 'Bad Request: chat_id is empty');
    const raw = params.text ?? '';
    if (!raw) throw new ApiError(400, 'Bad Request: message text is empty');
    // Telegram parses the markup before it looks at the chat.
    const parsed = parseText(raw, params.parse_mode ?? '', params.entities);
    const text = parsed.text.trim() ? parsed.text : '';
    if (!text) throw new ApiError(400, 'Bad Request: message must be non-empty');
    if (text.length > MAX_MESSAGE_LENGTH)
      throw new ApiError(400, 'Bad Request: message is too long');
    const chat = /^-?\d{1,20}$/.test(chatId) ? this.chats.get(Number(chatId)) : undefined;
    if (!chat) throw new ApiError(400, 'Bad Request: chat not found');
    if (chat.blocked) throw new ApiError(403, 'Forbidden: bot was blocked by the user');
    this.floodControl(chat.id);

    const message: TelegramFakeMessage = {
      chatId: chat.id,
      messageId: ++chat.lastMessageId,
      text,
      entities: parsed.entities,
      parseMode: params.parse_mode || null,
      date: this.unixNow(),
      params,
    };
    this.messages.push(message);
    const { id, first_name, username } = this.me;
    const result: Record<string, unknown> = {
      message_id: message.messageId,
      from: { id, is_bot: true, first_name, username },
      chat: this.chatObject(chat),
      date: message.date,
      text,
    };
    if (parsed.entities.length) result.entities = parsed.entities;
    return result;
  }

  /** About one message a second to one chat and about 30 a second overall, else 429. */
  private floodControl(chatId: number): void {
    const now = this.now();
    while (this.sentAt.length && this.sentAt[0].at <= now - 1000) this.sentAt.shift();
    const wait = (times: number[], limit: number) =>
      limit > 0 && times.length >= limit
        ? Math.max(1, Math.ceil((times[0] + 1000 - now) / 1000))
        : 0;
    const retryAfter = Math.max(
      wait(
        this.sentAt.filter((s) => s.chatId === chatId).map((s) => s.at),
        this.perChatPerSecond,
      ),
      wait(
        this.sentAt.map((s) => s.at),
        this.perSecond,
      ),
    );
    if (retryAfter > 0) {
      throw new ApiError(429, `Too Many Requests: retry after ${retryAfter}`, {
        retry_after: retryAfter,
      });
    }
    this.sentAt.push({ chatId, at: now });
  }

  private setWebhook(params: Record<string, string>): { result: true; description: string } {
    const url = params.url ?? '';
    if (!url) return this.deleteWebhook(params);
    let parsed: URL;
    try {
      parsed = new URL(url);
      if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new Error('scheme');
    } catch {
      throw new ApiError(400, 'Bad Request: invalid webhook URL specified');
    }
    const secretToken = params.secret_token ?? '';
    if (secretToken.length > 256) throw new ApiError(400, 'Bad Request: secret token is too long');
    if (!/^[A-Za-z0-9_-]*$/.test(secretToken)) {
      throw new ApiError(400, 'Bad Request: secret token contains unallowed characters');
    }
    if (!this.localMode) {
      if (parsed.protocol !== 'https:') {
        throw new ApiError(
          400,
          'Bad Request: bad webhook: An HTTPS URL must be provided for webhook',
        );
      }
      if (!WEBHOOK_PORTS.has(Number(parsed.port || 443))) {
        throw new ApiError(
          400,
          'Bad Request: bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443',
        );
      }
    }
    const maxConnections = Math.min(100, Math.max(1, Number(params.max_connections) || 40));
    const allowedUpdates =
      readAllowedUpdates(params.allowed_updates) ?? this.webhook?.allowedUpdates;
    if (params.drop_pending_updates === 'true') this.pending.length = 0;
    const same =
      this.webhook &&
      this.webhook.url === url &&
      this.webhook.secretToken === secretToken &&
      this.webhook.maxConnections === maxConnections;
    this.webhook = {
      ...(same ? this.webhook : {}),
      url,
      secretToken,
      allowedUpdates: allowedUpdates ?? null,
      maxConnections,
    };
    return { result: true, description: same ? 'Webhook is already set' : 'Webhook was set' };
  }

  private deleteWebhook(params: Record<string, string>): { result: true; description: string } {
    if (params.drop_pending_updates === 'true') this.pending.length = 0;
    const was = this.webhook !== null;
    this.webhook = null;
    return {
      result: true,
      description: was ? 'Webhook was deleted' : 'Webhook is already deleted',
    };
  }

  private webhookInfo(): Record<string, unknown> {
    const hook = this.webhook;
    const info: Record<string, unknown> = {
      url: hook?.url ?? '',
      has_custom_certificate: false,
      pending_update_count: this.pending.length,
    };
    if (!hook) return info;
    if (hook.lastErrorDate) {
      info.last_error_date = hook.lastErrorDate;
      info.last_error_message = hook.lastErrorMessage;
    }
    info.max_connections = hook.maxConnections;
    info.ip_address = '127.0.0.1';
    if (hook.allowedUpdates) info.allowed_updates = hook.allowedUpdates;
    return info;
  }
}

/** Telegram's front proxy answers a 502 with nginx's page, not with the Bot API's JSON. */
const NGINX_502 =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.18.0</center>\r\n</body>\r\n</html>\r\n';

/**
 * The parameters of a request as the Bot API reads them: the query string, then a form or JSON
 * body; JSON values that are not strings (numbers, arrays, objects) are kept as their JSON text.
 * Multipart bodies (file uploads) are not read.
 */
function readParams(
  query: URLSearchParams,
  contentType: string | null,
  body: Buffer,
): Record<string, string> {
  const params: Record<string, string> = Object.fromEntries(query);
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') {
    for (const [k, v] of new URLSearchParams(body.toString('utf8'))) params[k] = v;
  } else if (type === 'application/json' && body.length) {
    let value: unknown;
    try {
      value = JSON.parse(body.toString('utf8'));
    } catch {
      throw new ApiError(400, "Bad Request: can't parse JSON object");
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      throw new ApiError(400, 'Bad Request: JSON object expected');
    }
    for (const [k, v] of Object.entries(value)) {
      if (v === null || v === undefined) continue;
      params[k] = typeof v === 'string' ? v : JSON.stringify(v);
    }
  }
  return params;
}

/** `allowed_updates`: a JSON array of type names; unreadable → unchanged, none known → default. */
function readAllowedUpdates(raw: string | undefined): string[] | null | undefined {
  if (!raw) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) return undefined;
  const known = (value as string[]).map((v) => v.toLowerCase()).filter((v) => UPDATE_TYPES.has(v));
  return known.length ? [...new Set(known)] : null;
}

// ---------------------------------------------------------------------------------------------
// Entity parsing: what Telegram makes of `parse_mode`, roughly (tdlib's parse_html,
// parse_markdown_v2 and parse_markdown): the plain text with UTF-16 offsets, or its error.

interface Parsed {
  text: string;
  entities: TelegramEntity[];
}

function parseText(raw: string, parseMode: string, entitiesParam: string | undefined): Parsed {
  const mode = parseMode.toLowerCase();
  let parsed: Parsed;
  try {
    if (!mode || mode === 'none') {
      parsed = { text: raw, entities: readEntities(entitiesParam) };
    } else if (mode === 'html') parsed = parseHtml(raw);
    else if (mode === 'markdownv2') parsed = parseMarkdownV2(raw);
    else if (mode === 'markdown') parsed = parseMarkdown(raw);
    else throw new ApiError(400, 'Bad Request: unsupported parse_mode');
  } catch (e) {
    if (e instanceof EntityError) {
      throw new ApiError(400, `Bad Request: can't parse entities: ${e.message}`);
    }
    throw e;
  }
  return parsed;
}

function readEntities(raw: string | undefined): TelegramEntity[] {
  if (!raw) return [];
  try {
    const v: unknown = JSON.parse(raw);
    return Array.isArray(v) ? (v as TelegramEntity[]) : [];
  } catch {
    throw new ApiError(400, "Bad Request: can't parse entities JSON object");
  }
}

class EntityError extends Error {}

const byteOffset = (s: string, index: number) => Buffer.byteLength(s.slice(0, index), 'utf8');

const HTML_TAGS: Record<string, string> = {
  b: 'bold',
  strong: 'bold',
  i: 'italic',
  em: 'italic',
  u: 'underline',
  ins: 'underline',
  s: 'strikethrough',
  strike: 'strikethrough',
  del: 'strikethrough',
  span: 'spoiler',
  'tg-spoiler': 'spoiler',
  a: 'text_link',
  code: 'code',
  pre: 'pre',
  blockquote: 'blockquote',
  'tg-emoji': 'custom_emoji',
  'tg-time': 'date_time',
};

/** `&lt;`, `&gt;`, `&amp;`, `&quot;` and numeric references; any other `&` stays as written. */
function decodeEntity(s: string, i: number): { ch: string; next: number } | null {
  const m = /^&(?:#(\d{1,7})|#x([0-9a-fA-F]{1,6})|(lt|gt|amp|quot));?/.exec(s.slice(i, i + 12));
  if (!m) return null;
  const named: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };
  const code = m[1] ? Number(m[1]) : m[2] ? parseInt(m[2], 16) : -1;
  if (code === 0 || code >= 0x10ffff) return null;
  const ch = m[3] ? named[m[3]] : String.fromCodePoint(code);
  return { ch, next: i + m[0].length };
}

function parseHtml(s: string): Parsed {
  let text = '';
  const entities: TelegramEntity[] = [];
  const open: { name: string; offset: number; attrs: Record<string, string> }[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === '&') {
      const d = decodeEntity(s, i);
      text += d ? d.ch : c;
      i = d ? d.next : i + 1;
      continue;
    }
    if (c !== '<') {
      text += c;
      i++;
      continue;
    }
    const at = byteOffset(s, i);
    const close = s.indexOf('>', i);
    if (s[i + 1] === '/') {
      if (close < 0) throw new EntityError(`Unclosed end tag at byte offset ${at}`);
      const name = s
        .slice(i + 2, close)
        .trim()
        .toLowerCase();
      const top = open.pop();
      if (!top) throw new EntityError(`Unexpected end tag at byte offset ${at}`);
      if (name && name !== top.name) {
        throw new EntityError(
          `Unmatched end tag at byte offset ${at}, expected "</${top.name}>", found "</${name}>"`,
        );
      }
      const length = text.length - top.offset;
      if (length > 0) entities.push(htmlEntity(top.name, top.offset, length, top.attrs));
      i = close + 1;
      continue;
    }
    if (close < 0) throw new EntityError(`Unclosed start tag at byte offset ${at}`);
    const body = s.slice(i + 1, close);
    const name = (/^[^\s>]*/.exec(body)?.[0] ?? '').toLowerCase();
    if (!(name in HTML_TAGS)) {
      throw new EntityError(`Unsupported start tag "${name}" at byte offset ${at}`);
    }
    const attrs: Record<string, string> = {};
    const attrRe = /([^\s=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9.-]+)))?/g;
    for (const m of body.slice(name.length).matchAll(attrRe)) {
      attrs[m[1].toLowerCase()] = m[2] ?? m[3] ?? (m[4] ?? '').toLowerCase();
    }
    if (name === 'span' && attrs.class !== 'tg-spoiler') {
      throw new EntityError(`Tag "span" must have class "tg-spoiler" at byte offset ${at}`);
    }
    open.push({ name, offset: text.length, attrs });
    i = close + 1;
  }
  const unclosed = open.pop();
  if (unclosed) {
    throw new EntityError(`Can't find end tag corresponding to start tag "${unclosed.name}"`);
  }
  return { text, entities: entities.sort((a, b) => a.offset - b.offset) };
}

function htmlEntity(
  name: string,
  offset: number,
  length: number,
  attrs: Record<string, string>,
): TelegramEntity {
  const type = HTML_TAGS[name];
  if (type === 'text_link') return { type, offset, length, url: attrs.href ?? '' };
  if (type === 'blockquote' && 'expandable' in attrs) {
    return { type: 'expandable_blockquote', offset, length };
  }
  if (type === 'custom_emoji') {
    return { type, offset, length, custom_emoji_id: attrs['emoji-id'] ?? '' };
  }
  return { type, offset, length };
}

const MDV2_RESERVED = '_*[]()~`>#+-=|{}.!';
const MDV2_MARKERS: [string, string, string][] = [
  ['||', 'spoiler', 'Spoiler'],
  ['__', 'underline', 'Underline'],
  ['*', 'bold', 'Bold'],
  ['_', 'italic', 'Italic'],
  ['~', 'strikethrough', 'Strikethrough'],
];

function parseMarkdownV2(s: string): Parsed {
  let text = '';
  const entities: TelegramEntity[] = [];
  const open: { marker: string; type: string; name: string; offset: number; at: number }[] = [];
  let i = 0;
  const reserved = (ch: string) =>
    new EntityError(`Character '${ch}' is reserved and must be escaped with the preceding '\\'`);
  while (i < s.length) {
    const c = s[i];
    if (c === '\\') {
      const next = s[i + 1];
      if (next === undefined || next.charCodeAt(0) > 126) throw reserved('\\');
      text += next;
      i += 2;
      continue;
    }
    if (c === '`') {
      const pre = s.startsWith('```', i);
      const fence = pre ? '```' : '`';
      let j = i + fence.length;
      let body = '';
      while (j < s.length && !s.startsWith(fence, j)) {
        if (s[j] === '\\' && j + 1 < s.length) j++;
        body += s[j++];
      }
      if (j >= s.length) {
        throw new EntityError(
          `Can't find end of ${pre ? 'Pre' : 'Code'} entity at byte offset ${byteOffset(s, i)}`,
        );
      }
      let language: string | undefined;
      const nl = body.indexOf('\n');
      if (pre && nl > 0 && !/\s/.test(body.slice(0, nl))) {
        language = body.slice(0, nl);
        body = body.slice(nl + 1);
      } else if (pre && nl === 0) body = body.slice(1);
      if (body.length) {
        const e: TelegramEntity = {
          type: pre ? 'pre' : 'code',
          offset: text.length,
          length: body.length,
        };
        if (language) e.language = language;
        entities.push(e);
      }
      text += body;
      i = j + fence.length;
      continue;
    }
    if (c === '[') {
      open.push({
        marker: '[',
        type: 'text_link',
        name: 'TextUrl',
        offset: text.length,
        at: byteOffset(s, i),
      });
      i++;
      continue;
    }
    if (c === ']' && open.at(-1)?.marker === '[') {
      const top = open.pop()!;
      const m = /^\]\(((?:\\.|[^)\\])*)\)/.exec(s.slice(i));
      if (!m) throw new EntityError(`Can't find end of a url at byte offset ${byteOffset(s, i)}`);
      const url = m[1].replace(/\\(.)/g, '$1');
      if (text.length > top.offset) {
        entities.push({
          type: 'text_link',
          offset: top.offset,
          length: text.length - top.offset,
          url,
        });
      }
      i += m[0].length;
      continue;
    }
    if (c === '>' && (i === 0 || s[i - 1] === '\n')) {
      // A quoted line: the quote runs to the end of the last consecutive `>` line.
      let end = i;
      let body = '';
      while (end < s.length && s[end] === '>') {
        const nl = s.indexOf('\n', end);
        const line = nl < 0 ? s.slice(end + 1) : s.slice(end + 1, nl + 1);
        body += line;
        end = nl < 0 ? s.length : nl + 1;
      }
      const inner = parseMarkdownV2(body);
      const offset = text.length;
      for (const e of inner.entities) entities.push({ ...e, offset: e.offset + offset });
      const length = inner.text.replace(/\n$/, '').length;
      if (length) entities.push({ type: 'blockquote', offset, length });
      text += inner.text;
      i = end;
      continue;
    }
    const marker = MDV2_MARKERS.find(([m]) => s.startsWith(m, i));
    if (marker) {
      const [m, type, name] = marker;
      const top = open.at(-1);
      if (top?.marker === m) {
        open.pop();
        if (text.length > top.offset) {
          entities.push({ type, offset: top.offset, length: text.length - top.offset });
        }
      } else {
        open.push({ marker: m, type, name, offset: text.length, at: byteOffset(s, i) });
      }
      i += m.length;
      continue;
    }
    if (MDV2_RESERVED.includes(c)) throw reserved(c);
    text += c;
    i++;
  }
  const unclosed = open.pop();
  if (unclosed) {
    throw new EntityError(
      `Can't find end of ${unclosed.name} entity at byte offset ${unclosed.at}`,
    );
  }
  return { text, entities: entities.sort((a, b) => a.offset - b.offset) };
}

/** The legacy Markdown: *bold*, _italic_, `code`, ```pre```, [text](url); no nesting. */
function parseMarkdown(s: string): Parsed {
  let text = '';
  const entities: TelegramEntity[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === '\\' && '_*`['.includes(s[i + 1] ?? '')) {
      text += s[i + 1];
      i += 2;
      continue;
    }
    if (!'_*`['.includes(c)) {
      text += c;
      i++;
      continue;
    }
    const begin = i;
    const pre = s.startsWith('```', i);
    const end = pre ? '```' : c === '[' ? ']' : c;
    i += pre ? 3 : 1;
    const close = s.indexOf(end, i);
    if (close < 0) {
      throw new EntityError(
        `Can't find end of the entity starting at byte offset ${byteOffset(s, begin)}`,
      );
    }
    const body = s.slice(i, close);
    i = close + end.length;
    const offset = text.length;
    text += body;
    if (!body.length) continue;
    if (c === '[') {
      const m = /^\(([^)]*)\)/.exec(s.slice(i));
      const url = m ? m[1] : body;
      if (m) i += m[0].length;
      entities.push({ type: 'text_link', offset, length: body.length, url });
    } else {
      const type = pre ? 'pre' : c === '*' ? 'bold' : c === '_' ? 'italic' : 'code';
      entities.push({ type, offset, length: body.length });
    }
  }
  return { text, entities };
}
