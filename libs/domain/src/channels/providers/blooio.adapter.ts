// iMessage through Blooio (§17): `POST {apiBaseUrl}/chats/{chatId}/messages` with a bearer API key
// and a JSON body, the chat id being the recipient's E.164 number or Apple ID e-mail. Blooio posts
// message events to the webhook the organization creates for our callback URL, signed
// `X-Blooio-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` under the webhook's
// signing secret: the same scheme as our own webhooks (§10), so it is checked with their verifier.
//
// Why Blooio: it sells iMessage sending through a public, self-serve REST API documented at
// docs.blooio.com (send, status, webhooks, errors), and it is the one of the providers compared
// (Sendblue, LoopMessage, Blooio, Linq) whose callbacks are signed with an HMAC over a timestamp
// and the body, which we verify and bound in time like any signed callback. Sendblue and
// LoopMessage authenticate callbacks with a static secret header only, and Linq issues its API and
// signing secret through a sales contact rather than a public sign-up.
import { Injectable } from '@nestjs/common';
import type {
  ImessageContent,
  InboundProviderMessage,
  ProviderAccount,
  ProviderAdapter,
  ProviderCallback,
  ProviderMessage,
  SendOutcome,
  StatusUpdate,
} from '../provider-adapter';
import { ProviderHttp, ProviderUnreachableError } from '../provider-http';
import { parseJson, retryAfterMs, scrub, stringSetting } from './provider-answers';
import { verifySignature as verifyTimestampedHmac } from '../../webhooks/webhook-signature';

export const BLOOIO_DEFAULT_API_BASE_URL = 'https://backend.blooio.com/v2/api';
/** Blooio's replay window for `X-Blooio-Signature` (docs.blooio.com/guides/webhook-signatures). */
const SIGNATURE_TOLERANCE_SECONDS = 300;

const E164 = /^\+[1-9]\d{1,14}$/;
const APPLE_ID = /^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/;

/**
 * Blooio's webhook events → ours. A failure whose `protocol` is `non-imessage` means the
 * recipient is not signed in to iMessage and cannot get one (an Apple ID e-mail has no SMS
 * fallback): the address is invalid for the channel. A number not on iMessage falls back to SMS
 * and arrives `delivered` with `protocol: "sms"`.
 *
 * | Blooio event        | protocol       | Ours      |
 * |---------------------|----------------|-----------|
 * | message.queued      |                | sent      |
 * | message.sent        |                | sent      |
 * | message.delivered   | imessage, sms… | delivered |
 * | message.read        |                | read      |
 * | message.failed      | non-imessage   | bounced   |
 * | message.failed      | any other      | failed    |
 * | message.received    |                | (inbound) |
 */
const EVENT_MAP: Record<string, StatusUpdate['status'] | 'by-protocol'> = {
  'message.queued': 'sent',
  'message.sent': 'sent',
  'message.delivered': 'delivered',
  'message.read': 'read',
  'message.failed': 'by-protocol',
};
/** The event's own time field, in epoch milliseconds. */
const EVENT_TIME: Record<string, string> = {
  'message.sent': 'sent_at',
  'message.delivered': 'delivered_at',
  'message.read': 'read_at',
};

interface BlooioCredentials {
  apiKey: string;
  /** Absent until the organization has created the Blooio webhook: no callback is trusted. */
  signingSecret?: string;
}

@Injectable()
export class BlooioAdapter implements ProviderAdapter {
  readonly channel = 'imessage' as const;
  readonly provider = 'blooio';

  constructor(private readonly http: ProviderHttp) {}

  async send(account: ProviderAccount, message: ProviderMessage): Promise<SendOutcome> {
    const creds = credentials(account);
    if (!creds)
      return { kind: 'unauthorized', message: 'Blooio API key or signing secret missing' };
    const to = message.to.trim();
    if (!E164.test(to) && !APPLE_ID.test(to)) {
      return {
        kind: 'rejected',
        permanent: true,
        addressEffect: 'invalid',
        code: 'invalid_address',
        message: 'An iMessage address is an E.164 phone number or an Apple ID e-mail',
      };
    }
    const content = message.content as ImessageContent;
    const body: Record<string, unknown> = {};
    if (content.text) body.text = content.text;
    if (content.mediaUrls?.length) body.attachments = content.mediaUrls;
    const from = stringSetting(account, 'fromNumber');

    const base = (stringSetting(account, 'apiBaseUrl') ?? BLOOIO_DEFAULT_API_BASE_URL).replace(
      /\/+$/,
      '',
    );
    let res;
    try {
      res = await this.http.request({
        method: 'POST',
        url: `${base}/chats/${encodeURIComponent(to)}/messages`,
        headers: {
          Authorization: `Bearer ${creds.apiKey}`,
          'Content-Type': 'application/json',
          Accept: 'application/json',
          // A retry of the same job returns the message Blooio already queued.
          'Idempotency-Key': message.reference,
          // Which of the organization's Blooio numbers sends (else Blooio's default one).
          ...(from ? { 'X-From-Number': from } : {}),
        },
        body: JSON.stringify(body),
      });
    } catch (err) {
      if (err instanceof ProviderUnreachableError)
        return { kind: 'unavailable', message: err.message };
      throw err;
    }

    const answer = parseJson(res.body);
    const code = typeof answer?.code === 'string' ? answer.code : undefined;
    const said = scrub(
      typeof answer?.message === 'string'
        ? `Blooio ${res.status}${code ? ` ${code}` : ''}: ${answer.message}`
        : `Blooio answered HTTP ${res.status}`,
      [creds.apiKey, creds.signingSecret],
    );
    if (res.status >= 200 && res.status < 300) {
      if (typeof answer?.message_id !== 'string')
        return { kind: 'unavailable', message: 'Blooio answer without a message id' };
      if (answer.status === 'failed') {
        // Refused before dispatch; Blooio's status resource carries the reason.
        return { kind: 'rejected', permanent: false, code: 'failed', message: said };
      }
      return { kind: 'accepted', providerMessageId: answer.message_id, status: 'sent' };
    }
    if (res.status === 401) return { kind: 'unauthorized', message: said };
    if (res.status === 429)
      return { kind: 'throttled', retryAfterMs: retryAfterMs(res.headers['retry-after']) };
    // 503 is also Blooio's "no active devices": the sending iPhone is away for a while.
    if (res.status >= 500) return { kind: 'unavailable', message: said };
    if (res.status >= 400) {
      // 400 invalid parameters or an attachment opening a new chat, 402 trial limit, 403 a sender
      // or feature the key may not use: our request or our account, not the address.
      return {
        kind: 'rejected',
        permanent: false,
        code: code ?? `http_${res.status}`,
        message: said,
      };
    }
    return { kind: 'unavailable', message: said };
  }

  verifySignature(account: ProviderAccount, callback: ProviderCallback): boolean {
    const creds = credentials(account);
    const given = callback.headers['x-blooio-signature'];
    if (!creds?.signingSecret || !given || callback.method.toUpperCase() !== 'POST') return false;
    return verifyTimestampedHmac(creds.signingSecret, given, callback.rawBody.toString('utf8'), {
      toleranceSeconds: SIGNATURE_TOLERANCE_SECONDS,
    });
  }

  parseStatus(callback: ProviderCallback): StatusUpdate[] {
    const event = parseJson(callback.rawBody);
    const name = typeof event?.event === 'string' ? event.event.toLowerCase() : '';
    const mapped = EVENT_MAP[name];
    const id = event?.message_id;
    if (!event || !mapped || typeof id !== 'string' || !id) return [];
    const protocol = typeof event.protocol === 'string' ? event.protocol : undefined;
    const update: StatusUpdate = {
      providerMessageId: id,
      status:
        mapped === 'by-protocol' ? (protocol === 'non-imessage' ? 'bounced' : 'failed') : mapped,
    };
    const at = Number(event[EVENT_TIME[name] ?? 'timestamp'] ?? event.timestamp);
    if (Number.isFinite(at) && at > 0) update.occurredAt = new Date(at);
    if (name === 'message.failed') {
      const code = typeof event.error_code === 'string' ? event.error_code : undefined;
      if (code) update.code = code;
      const why = typeof event.error_message === 'string' ? event.error_message : event.error;
      update.description = `Blooio message.failed (${protocol ?? 'unknown protocol'})${
        typeof why === 'string' && why ? `: ${why}` : ''
      }`;
    }
    return [update];
  }

  parseInbound(callback: ProviderCallback): InboundProviderMessage[] {
    const event = parseJson(callback.rawBody);
    if (!event || String(event.event).toLowerCase() !== 'message.received') return [];
    const id = event.message_id;
    const from = event.external_id ?? event.sender;
    if (typeof id !== 'string' || typeof from !== 'string') return [];
    return [
      {
        kind: 'message',
        providerMessageId: id,
        from,
        to: typeof event.internal_id === 'string' ? event.internal_id : '',
        text: typeof event.text === 'string' ? event.text : '',
      },
    ];
  }
}

function credentials(account: ProviderAccount): BlooioCredentials | undefined {
  const { apiKey, signingSecret } = account.credentials;
  if (typeof apiKey !== 'string' || !apiKey) return undefined;
  return typeof signingSecret === 'string' && signingSecret
    ? { apiKey, signingSecret }
    : { apiKey };
}
