// The generic `http` provider (§17), for any channel: a provider we have no adapter for is plugged
// in through a small service of the organization's that speaks this protocol.
//
// Send. We POST to `settings.url` a JSON body
//   {"id": "<our reference>", "channel": "sms", "to": "<address>", "content": {…},
//    "statusCallbackUrl": "<where to post statuses>"}
// (`platform` is added for push: `ios`, `android` or `web`). `content` is the channel's content
// as the send API takes it (sms `text`, `mediaUrls`; whatsapp `text` or `template`; telegram `text`,
// `parseMode`; push `title`, `body`, `data`…; imessage `text`, `mediaUrls`). The request is signed
// with Standard Webhooks headers (`webhook-id` = our reference, the same on every retry;
// `webhook-timestamp`; `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed
// with the base64 part of `credentials.secret`, a `whsec_` secret). The answer:
//   2xx            taken: the message is `sent`; a JSON `{"id": "…"}` names it for later
//                  statuses, else our reference names it;
//   410            the address is gone for good: bounced, the contact's record `invalid`;
//   429            throttled: retried after `Retry-After` (seconds or an HTTP date);
//   401, 403       the service refused our signature: counts toward the account's `failing`;
//   5xx, no answer deferred and retried;
//   other 4xx      this message failed (not the address); a JSON `{"code", "message"}` says why.
//
// Callbacks. The service posts to `statusCallbackUrl`, signed the same way with the same secret
// (a timestamp more than 5 minutes from ours is refused):
//   {"type": "message.status", "data": {"id": "<its message id>", "status": "sent|delivered|read|
//    failed|bounced", "code": "…", "description": "…"}}
// or several at once as `{"type": "message.status", "statuses": [<data>, …]}`; and an inbound
// message as {"type": "message.inbound", "data": {"id", "from", "to", "text"}}.
import { Inject, Injectable, Type } from '@nestjs/common';
import {
  PROVIDER_CHANNELS,
  type InboundProviderMessage,
  type ProviderAccount,
  type ProviderAdapter,
  type ProviderCallback,
  type ProviderChannel,
  type ProviderMessage,
  type SendOutcome,
  type StatusUpdate,
} from '../provider-adapter';
import { ProviderHttp, ProviderUnreachableError } from '../provider-http';
import { parseJson, retryAfterMs, scrub } from './provider-answers';
import { standardWebhookHeaders, verifyStandardWebhook } from './standard-webhooks';

const STATUSES = new Set<StatusUpdate['status']>([
  'sent',
  'delivered',
  'read',
  'failed',
  'bounced',
]);
/** How much of a service's own words an outcome quotes. */
const MAX_SAID = 300;

/** The adapter of one channel; the registry holds one per channel (HTTP_PROVIDER_ADAPTERS). */
export class HttpProviderAdapter implements ProviderAdapter {
  readonly provider = 'http';

  constructor(
    readonly channel: ProviderChannel,
    private readonly http: ProviderHttp,
  ) {}

  async send(account: ProviderAccount, message: ProviderMessage): Promise<SendOutcome> {
    const secret = stringValue(account.credentials.secret);
    if (!secret) return { kind: 'unauthorized', message: 'The http provider secret is missing' };
    const url = stringValue(account.settings.url);
    if (!url) {
      return {
        kind: 'rejected',
        permanent: false,
        code: 'no_url',
        message: 'settings.url is missing',
      };
    }
    const payload: Record<string, unknown> = {
      id: message.reference,
      channel: this.channel,
      to: message.to,
      content: message.content,
      statusCallbackUrl: message.statusCallbackUrl,
    };
    if (message.platform) payload.platform = message.platform;
    const body = JSON.stringify(payload);

    let res;
    try {
      res = await this.http.request({
        method: 'POST',
        url,
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json',
          ...standardWebhookHeaders(secret, body, { id: message.reference }),
        },
        body,
      });
    } catch (err) {
      if (err instanceof ProviderUnreachableError)
        return { kind: 'unavailable', message: err.message };
      throw err;
    }

    const answer = parseJson(res.body);
    const code =
      typeof answer?.code === 'string' && answer.code ? answer.code.slice(0, 100) : undefined;
    const said = scrub(
      typeof answer?.message === 'string' && answer.message
        ? `HTTP ${res.status}: ${answer.message.slice(0, MAX_SAID)}`
        : `The endpoint answered HTTP ${res.status}`,
      // The secret whole, and its key without the `whsec_` prefix.
      [secret, secret.replace(/^whsec_/, '')],
    );
    if (res.status >= 200 && res.status < 300) {
      const id = typeof answer?.id === 'string' && answer.id ? answer.id : message.reference;
      return { kind: 'accepted', providerMessageId: id, status: 'sent' };
    }
    if (res.status === 410) {
      return {
        kind: 'rejected',
        permanent: true,
        addressEffect: 'invalid',
        code: code ?? 'gone',
        message: said,
      };
    }
    if (res.status === 429)
      return { kind: 'throttled', retryAfterMs: retryAfterMs(res.headers['retry-after']) };
    if (res.status === 401 || res.status === 403) return { kind: 'unauthorized', message: said };
    if (res.status >= 400 && res.status < 500) {
      return {
        kind: 'rejected',
        permanent: false,
        code: code ?? `http_${res.status}`,
        message: said,
      };
    }
    // 5xx, and a 3xx (redirects are not followed).
    return { kind: 'unavailable', message: said };
  }

  verifySignature(account: ProviderAccount, callback: ProviderCallback): boolean {
    const secret = stringValue(account.credentials.secret);
    if (!secret || callback.method.toUpperCase() !== 'POST') return false;
    return verifyStandardWebhook(secret, callback.headers, callback.rawBody);
  }

  parseStatus(callback: ProviderCallback): StatusUpdate[] {
    const event = parseJson(callback.rawBody);
    if (event?.type !== 'message.status') return [];
    const items = Array.isArray(event.statuses) ? event.statuses : [event.data];
    const out: StatusUpdate[] = [];
    for (const item of items) {
      if (!isObject(item)) continue;
      const id = stringValue(item.id);
      const status = item.status as StatusUpdate['status'];
      if (!id || !STATUSES.has(status)) continue;
      const update: StatusUpdate = { providerMessageId: id, status };
      const code = stringValue(item.code);
      const description = stringValue(item.description);
      if (code) update.code = code.slice(0, 100);
      if (description) update.description = description.slice(0, MAX_SAID);
      out.push(update);
    }
    return out;
  }

  parseInbound(callback: ProviderCallback): InboundProviderMessage[] {
    const event = parseJson(callback.rawBody);
    if (event?.type !== 'message.inbound' || !isObject(event.data)) return [];
    const { id, from, to, text } = event.data;
    if (!stringValue(id) || !stringValue(from) || typeof text !== 'string') return [];
    return [
      {
        kind: 'message',
        providerMessageId: id as string,
        from: from as string,
        to: typeof to === 'string' ? to : '',
        text,
      },
    ];
  }
}

/** An injectable class serving `channel`: the registry keys adapters by channel and provider. */
function forChannel(channel: ProviderChannel): Type<ProviderAdapter> {
  @Injectable()
  class ChannelHttpProviderAdapter extends HttpProviderAdapter {
    constructor(@Inject(ProviderHttp) http: ProviderHttp) {
      super(channel, http);
    }
  }
  Object.defineProperty(ChannelHttpProviderAdapter, 'name', {
    value: `HttpProviderAdapter(${channel})`,
  });
  return ChannelHttpProviderAdapter;
}

/** One `http` adapter per channel, to list among the module's adapters. */
export const HTTP_PROVIDER_ADAPTERS: Type<ProviderAdapter>[] = PROVIDER_CHANNELS.map(forChannel);

function stringValue(v: unknown): string | undefined {
  return typeof v === 'string' && v ? v : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
