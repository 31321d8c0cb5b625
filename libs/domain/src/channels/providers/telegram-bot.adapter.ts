// Telegram through the Bot API (§17): `POST {base}/bot<token>/sendMessage` with a JSON body,
// answered `{ok, result}` or `{ok:false, error_code, description, parameters}`. A person is
// reachable once they opened the bot's deep link `t.me/<bot>?start=<payload>`; the bot then gets
// `/start <payload>` through its webhook. The webhook is set with `setWebhook` and a secret token
// derived from the bot token, which Telegram sends back in `X-Telegram-Bot-Api-Secret-Token`
// (Telegram does not sign its updates). Telegram reports no delivery statuses: a message the API
// took is in the chat. The bot token is part of every URL path; no message of ours carries it.
// Sources: core.telegram.org/bots/api (#making-requests, #sendmessage, #setwebhook, #update,
// #chatmemberupdated, #responseparameters), core.telegram.org/bots/features#deep-linking.
import { Injectable } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type {
  InboundProviderMessage,
  ProviderAccount,
  ProviderAdapter,
  ProviderCallback,
  ProviderMessage,
  SendOutcome,
  StatusUpdate,
  TelegramContent,
} from '../provider-adapter';
import { ProviderHttp, ProviderUnreachableError } from '../provider-http';
import { DEFAULT_RETRY_AFTER_MS, parseJson, scrub, stringSetting } from './provider-answers';

export const TELEGRAM_DEFAULT_API_BASE_URL = 'https://api.telegram.org';
/** The updates the webhook asks for: texts (`/start` included) and blocks. */
export const TELEGRAM_ALLOWED_UPDATES = ['message', 'my_chat_member'] as const;
/** A chat id: a user's (positive) or a group's (negative), at most 52 significant bits. */
const CHAT_ID = /^-?\d{1,20}$/;
/** A deep-link `start` parameter: 1-64 characters of A-Z, a-z, 0-9, `_` and `-`. */
const START_PAYLOAD = /^[A-Za-z0-9_-]{1,64}$/;

/** `https://t.me/<bot>?start=<payload>`: the link that opens the bot with `/start <payload>`. */
export function telegramDeepLink(botUsername: string, payload: string): string {
  if (!START_PAYLOAD.test(payload)) {
    throw new Error('A Telegram start parameter is 1-64 characters of A-Z, a-z, 0-9, _ and -');
  }
  return `https://t.me/${encodeURIComponent(botUsername.replace(/^@/, ''))}?start=${payload}`;
}

/**
 * The payload of a deep-link start, from the text the bot received (`/start <payload>`, or
 * `/start@<bot> <payload>` in a group); null for any other text, a bare `/start` included.
 */
export function telegramStartPayload(text: string): string | null {
  const m = /^\/start(?:@[A-Za-z0-9_]{5,32})? ([A-Za-z0-9_-]{1,64})$/.exec(text.trim());
  return m ? m[1] : null;
}

/**
 * The webhook's secret token for an account: base64url of HMAC-SHA256 under the bot token over
 * `webhook:<account id>` (43 characters of Telegram's allowed A-Z, a-z, 0-9, `_`, `-`). Derived,
 * so every replica checks it without storing it, and a new bot token makes a new one.
 */
export function telegramWebhookSecret(botToken: string, accountId: string): string {
  return createHmac('sha256', botToken).update(`webhook:${accountId}`).digest('base64url');
}

interface BotApiAnswer {
  ok?: boolean;
  result?: unknown;
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
}

@Injectable()
export class TelegramBotAdapter implements ProviderAdapter {
  readonly channel = 'telegram' as const;
  readonly provider = 'telegram-bot';
  /**
   * Telegram's limit to one chat is about one message a second (core.telegram.org/bots/faq);
   * sends are spaced 1.25 s apart, as two sent a second apart may reach Telegram closer together.
   */
  readonly perAddressPerSecond = 0.8;

  constructor(private readonly http: ProviderHttp) {}

  async send(account: ProviderAccount, message: ProviderMessage): Promise<SendOutcome> {
    const token = botToken(account);
    if (!token) return { kind: 'unauthorized', message: 'Telegram bot token missing' };
    if (!CHAT_ID.test(message.to)) {
      return {
        kind: 'rejected',
        permanent: true,
        addressEffect: 'invalid',
        code: 'invalid_chat_id',
        message: 'A Telegram chat id is a whole number',
      };
    }
    const content = message.content as TelegramContent;
    const body: Record<string, unknown> = { chat_id: message.to, text: content.text ?? '' };
    if (content.parseMode) body.parse_mode = content.parseMode;

    const call = await this.call(account, token, 'sendMessage', body);
    if (call.kind === 'unreachable') return { kind: 'unavailable', message: call.message };
    const { status, answer, said } = call;

    if (status === 200 && answer?.ok === true) {
      const result = answer.result as { message_id?: unknown; chat?: { id?: unknown } } | undefined;
      if (typeof result?.message_id !== 'number') {
        return { kind: 'unavailable', message: 'Telegram answer without a message_id' };
      }
      const chatId = typeof result.chat?.id === 'number' ? String(result.chat.id) : message.to;
      // The Bot API answers once the message is in the chat; no receipt follows.
      return {
        kind: 'accepted',
        providerMessageId: `${chatId}:${result.message_id}`,
        status: 'delivered',
      };
    }
    // A token the API does not know: 401, or 404 for one its front end cannot route.
    if (status === 401 || status === 404) return { kind: 'unauthorized', message: said };
    if (status === 429) {
      const seconds = answer?.parameters?.retry_after;
      const retryAfterMs =
        typeof seconds === 'number' && seconds > 0
          ? Math.max(seconds * 1000, DEFAULT_RETRY_AFTER_MS)
          : DEFAULT_RETRY_AFTER_MS;
      return { kind: 'throttled', retryAfterMs };
    }
    if (status >= 500 || !answer) return { kind: 'unavailable', message: said };
    const description = answer.description ?? '';
    if (status === 403) return forbidden(description, said);
    if (status === 400) return badRequest(description, answer, said);
    return { kind: 'rejected', permanent: false, code: `http_${status}`, message: said };
  }

  async register(account: ProviderAccount, callbackUrl: string): Promise<void> {
    const token = botToken(account);
    if (!token) throw new Error('Telegram bot token missing');
    const call = await this.call(account, token, 'setWebhook', {
      url: callbackUrl,
      secret_token: telegramWebhookSecret(token, account.id),
      allowed_updates: TELEGRAM_ALLOWED_UPDATES,
    });
    // No answer, or none about the webhook (a 5xx), says nothing of the token: the caller's 503.
    if (call.kind === 'unreachable') {
      throw new ProviderUnreachableError(`Telegram Bot API unreachable: ${call.message}`);
    }
    if (call.status >= 500) throw new ProviderUnreachableError(call.said);
    if (call.status !== 200 || call.answer?.ok !== true) {
      throw new Error(`Telegram refused the webhook: ${call.said}`);
    }
  }

  verifySignature(account: ProviderAccount, callback: ProviderCallback): boolean {
    const token = botToken(account);
    const given = callback.headers['x-telegram-bot-api-secret-token'];
    if (!token || !given || callback.method.toUpperCase() !== 'POST') return false;
    const expected = Buffer.from(telegramWebhookSecret(token, account.id));
    const givenBuf = Buffer.from(given);
    return expected.length === givenBuf.length && timingSafeEqual(expected, givenBuf);
  }

  /** Telegram reports no statuses: a message the API took is in the chat. */
  parseStatus(): StatusUpdate[] {
    return [];
  }

  /**
   * A text in a chat with the bot (`from`: the chat id), or the bot blocked (`kicked`) or restarted
   * (`kicked` → `member`) by a person. `to` is the account's bot as `@<botUsername>` (an Update
   * does not name the bot it was sent to).
   */
  parseInbound(callback: ProviderCallback, account: ProviderAccount): InboundProviderMessage[] {
    const update = parseJson(callback.rawBody);
    if (!update) return [];
    const message = update.message as
      { message_id?: unknown; chat?: { id?: unknown }; text?: unknown } | undefined;
    if (message && typeof message === 'object') {
      const chatId = message.chat?.id;
      if (typeof chatId !== 'number' || typeof message.message_id !== 'number') return [];
      if (typeof message.text !== 'string') return [];
      const username = account.settings.botUsername;
      return [
        {
          kind: 'message',
          providerMessageId: `${chatId}:${message.message_id}`,
          from: String(chatId),
          to: typeof username === 'string' && username ? `@${username.replace(/^@/, '')}` : '',
          text: message.text,
        },
      ];
    }
    const member = update.my_chat_member as
      | {
          chat?: { id?: unknown };
          old_chat_member?: { status?: unknown };
          new_chat_member?: { status?: unknown };
        }
      | undefined;
    if (member && typeof member === 'object' && typeof member.chat?.id === 'number') {
      const from = String(member.chat.id);
      const was = member.old_chat_member?.status;
      const now = member.new_chat_member?.status;
      if (now === 'kicked') return [{ kind: 'blocked', from }];
      if (was === 'kicked' && now === 'member') return [{ kind: 'unblocked', from }];
    }
    return [];
  }

  /** One Bot API call; the answer's text is scrubbed of the token before it goes anywhere. */
  private async call(
    account: ProviderAccount,
    token: string,
    method: string,
    body: Record<string, unknown>,
  ): Promise<
    | { kind: 'answered'; status: number; answer: BotApiAnswer | undefined; said: string }
    | { kind: 'unreachable'; message: string }
  > {
    const base = (stringSetting(account, 'apiBaseUrl') ?? TELEGRAM_DEFAULT_API_BASE_URL).replace(
      /\/+$/,
      '',
    );
    let res;
    try {
      res = await this.http.request({
        method: 'POST',
        url: `${base}/bot${token}/${method}`,
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(body),
      });
    } catch (err) {
      if (err instanceof ProviderUnreachableError) {
        return { kind: 'unreachable', message: scrub(err.message, tokenForms(token)) };
      }
      throw err;
    }
    const answer = parseJson(res.body) as BotApiAnswer | undefined;
    const said = scrub(
      typeof answer?.description === 'string'
        ? `Telegram ${answer.error_code ?? res.status}: ${answer.description}`
        : `Telegram answered HTTP ${res.status}`,
      tokenForms(token),
    );
    return { kind: 'answered', status: res.status, answer, said };
  }
}

/** 403: the person blocked the bot, deleted their account, or a group removed the bot. */
function forbidden(description: string, said: string): SendOutcome {
  if (/blocked by the user/i.test(description)) {
    return {
      kind: 'rejected',
      permanent: true,
      addressEffect: 'blocked',
      code: 'blocked',
      message: said,
    };
  }
  if (/user is deactivated/i.test(description)) {
    return {
      kind: 'rejected',
      permanent: true,
      addressEffect: 'invalid',
      code: 'user_deactivated',
      message: said,
    };
  }
  if (/kicked from|not a member/i.test(description)) {
    return {
      kind: 'rejected',
      permanent: true,
      addressEffect: 'blocked',
      code: 'kicked',
      message: said,
    };
  }
  return { kind: 'rejected', permanent: false, code: 'forbidden', message: said };
}

/**
 * 400: the chat is unknown to the bot (or a group moved to a new id): the address is invalid.
 * Everything else (markup Telegram cannot parse, an empty or too long text) is our content: the
 * message failed, the address did not bounce.
 */
function badRequest(description: string, answer: BotApiAnswer, said: string): SendOutcome {
  if (/chat not found/i.test(description) || answer.parameters?.migrate_to_chat_id !== undefined) {
    return {
      kind: 'rejected',
      permanent: true,
      addressEffect: 'invalid',
      code: 'chat_not_found',
      message: said,
    };
  }
  const code = /can't parse entities/i.test(description) ? 'cant_parse_entities' : 'bad_request';
  return { kind: 'rejected', permanent: false, code, message: said };
}

/**
 * The forms of the bot token a text may carry back: the whole token, percent-encoded (a proxy may
 * quote the path) and its secret half after the colon.
 */
function tokenForms(token: string): string[] {
  return [token, encodeURIComponent(token), token.slice(token.indexOf(':') + 1)];
}

function botToken(account: ProviderAccount): string | undefined {
  const v = account.credentials.botToken;
  return typeof v === 'string' && v ? v : undefined;
}
