// WhatsApp through Meta's WhatsApp Cloud API (§17): `POST /{version}/{phone-number-id}/messages` on
// the Graph API, JSON with a bearer access token; free text inside the customer's 24-hour service
// window, an approved template otherwise. Status notifications and inbound messages arrive at the
// app's one callback URL in the `whatsapp_business_account` envelope, signed with
// X-Hub-Signature-256 (HMAC-SHA256 of the raw body under the app secret); Meta checks that URL
// first with a GET carrying `hub.challenge`. Graph errors are read by their `code`, as Meta advises
// (developers.facebook.com/documentation/business-messaging/whatsapp/support/error-codes).
import { Injectable } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type {
  AddressEffect,
  InboundProviderMessage,
  ProviderAccount,
  ProviderAdapter,
  ProviderCallback,
  ProviderMessage,
  SendOutcome,
  StatusUpdate,
  WhatsappContent,
} from '../provider-adapter';
import { ProviderHttp, ProviderUnreachableError } from '../provider-http';
import {
  DEFAULT_RETRY_AFTER_MS,
  parseJson,
  retryAfterMs,
  scrub,
  stringSetting,
} from './provider-answers';
import {
  THROTTLE_WAIT_MS,
  SPAM_RATE_LIMIT,
  UNAUTHORIZED_CODES,
  UNAVAILABLE_CODES,
  UNDELIVERABLE,
  OUTSIDE_WINDOW,
  MARKETING_OPT_OUT,
  INVALID_PARAMETER_CODES,
  INVALID_TO,
  STATUS_MAP,
} from './whatsapp-cloud.codes';

export const WHATSAPP_DEFAULT_API_BASE_URL = 'https://graph.facebook.com';
/** The Graph API version every request names; a new version is adopted by changing it here. */
export const WHATSAPP_GRAPH_VERSION = 'v21.0';

type WhatsappCredentials = { accessToken?: string; appSecret?: string };
type GraphError = { code?: number; message?: string; details?: string };

@Injectable()
export class WhatsappCloudAdapter implements ProviderAdapter {
  readonly channel = 'whatsapp' as const;
  readonly provider = 'whatsapp-cloud';

  constructor(private readonly http: ProviderHttp) {}

  async send(account: ProviderAccount, message: ProviderMessage): Promise<SendOutcome> {
    const creds = credentials(account);
    const phoneNumberId = stringSetting(account, 'phoneNumberId');
    if (!creds.accessToken)
      return { kind: 'unauthorized', message: 'WhatsApp access token missing' };
    if (!phoneNumberId || !/^\d+$/.test(phoneNumberId)) {
      return { kind: 'unauthorized', message: 'WhatsApp phone number id missing' };
    }
    if (!/^\+[1-9]\d{6,14}$/.test(message.to)) {
      return rejected(true, 'invalid_number', 'Not an E.164 phone number', 'invalid');
    }
    const bodies = requestBodies(message);
    if (!bodies.length) {
      return rejected(false, 'invalid_content', 'A message needs a text or a template');
    }
    // A text goes first; when the window is closed (131047) the template goes instead.
    let outcome: SendOutcome | undefined;
    for (const body of bodies) {
      outcome = await this.post(account, phoneNumberId, body);
      if (outcome.kind !== 'rejected' || outcome.code !== 'outside_window') break;
    }
    return outcome!;
  }

  private async post(
    account: ProviderAccount,
    phoneNumberId: string,
    body: Record<string, unknown>,
  ): Promise<SendOutcome> {
    const creds = credentials(account);
    const base = (stringSetting(account, 'apiBaseUrl') ?? WHATSAPP_DEFAULT_API_BASE_URL).replace(
      /\/+$/,
      '',
    );
    let res;
    try {
      res = await this.http.request({
        method: 'POST',
        url: `${base}/${WHATSAPP_GRAPH_VERSION}/${phoneNumberId}/messages`,
        headers: {
          Authorization: `Bearer ${creds.accessToken}`,
          'Content-Type': 'application/json',
          Accept: 'application/json',
        },
        body: JSON.stringify(body),
      });
    } catch (err) {
      if (err instanceof ProviderUnreachableError) {
        return {
          kind: 'unavailable',
          message: scrub(err.message, [creds.accessToken, creds.appSecret]),
        };
      }
      throw err;
    }

    const parsed = parseJson(res.body);
    const error = graphError(parsed);
    const code = error?.code ?? -1;
    const said = scrub(
      error?.code !== undefined
        ? `WhatsApp ${code}: ${error.message ?? ''}${detailsOf(error)}`
        : `WhatsApp answered HTTP ${res.status}`,
      [creds.accessToken, creds.appSecret],
    );
    if (res.status >= 200 && res.status < 300 && !error) {
      const id = (parsed?.messages as { id?: unknown }[] | undefined)?.[0]?.id;
      if (typeof id !== 'string' || !id) {
        return { kind: 'unavailable', message: 'WhatsApp answer without a message id' };
      }
      return { kind: 'accepted', providerMessageId: id, status: 'sent' };
    }
    if (res.status === 401 || UNAUTHORIZED_CODES.has(code) || (code >= 200 && code <= 299)) {
      return { kind: 'unauthorized', message: said };
    }
    if (code === SPAM_RATE_LIMIT) return rejected(false, String(code), said);
    // Throttling is read from the code first: Meta lists these as 429 but also answers them 400.
    if (code in THROTTLE_WAIT_MS || res.status === 429) {
      const wait = retryAfterMs(
        res.headers['retry-after'],
        THROTTLE_WAIT_MS[code] ?? DEFAULT_RETRY_AFTER_MS,
      );
      return { kind: 'throttled', retryAfterMs: wait };
    }
    if (res.status >= 500 || res.status < 400 || UNAVAILABLE_CODES.has(code)) {
      return { kind: 'unavailable', message: said };
    }
    return refusal(error, res.status, said);
  }

  verifySignature(account: ProviderAccount, callback: ProviderCallback): boolean {
    const { appSecret } = credentials(account);
    const given = callback.headers['x-hub-signature-256'];
    if (!appSecret || !given || callback.method.toUpperCase() !== 'POST') return false;
    const match = /^sha256=([0-9a-fA-F]{64})$/.exec(given.trim());
    if (!match) return false;
    const expected = createHmac('sha256', appSecret).update(callback.rawBody).digest();
    return timingSafeEqual(expected, Buffer.from(match[1], 'hex'));
  }

  /** Meta's subscription check: the challenge, when the mode and our verify token match. */
  handshake(account: ProviderAccount, query: URLSearchParams): string | null {
    const verifyToken = stringSetting(account, 'verifyToken');
    const given = query.get('hub.verify_token');
    const challenge = query.get('hub.challenge');
    if (!verifyToken || given === null || query.get('hub.mode') !== 'subscribe') return null;
    // Meta's challenge is a number; nothing else is echoed into the answer.
    if (!challenge || !/^[A-Za-z0-9_-]{1,128}$/.test(challenge)) return null;
    const a = Buffer.from(given);
    const b = Buffer.from(verifyToken);
    return a.length === b.length && timingSafeEqual(a, b) ? challenge : null;
  }

  parseStatus(callback: ProviderCallback): StatusUpdate[] {
    const out: StatusUpdate[] = [];
    for (const value of changeValues(callback.rawBody)) {
      for (const s of arrayOf(value.statuses)) {
        const mapped = typeof s.status === 'string' ? STATUS_MAP[s.status] : undefined;
        if (!mapped || typeof s.id !== 'string' || !s.id) continue;
        const error = arrayOf(s.errors)[0];
        const code = typeof error?.code === 'number' ? error.code : undefined;
        const update: StatusUpdate = {
          providerMessageId: s.id,
          status: mapped === 'by-code' ? (code === UNDELIVERABLE ? 'bounced' : 'failed') : mapped,
        };
        if (update.status === 'bounced') update.addressEffect = 'blocked';
        const at = Number(s.timestamp);
        if (Number.isFinite(at) && at > 0) update.occurredAt = new Date(at * 1000);
        if (code !== undefined) {
          update.code = String(code);
          const title = typeof error?.title === 'string' ? error.title : '';
          update.description = `WhatsApp ${s.status}, error ${code}${title ? `: ${title}` : ''}`;
        }
        out.push(update);
      }
    }
    return out;
  }

  parseInbound(callback: ProviderCallback): InboundProviderMessage[] {
    const out: InboundProviderMessage[] = [];
    for (const value of changeValues(callback.rawBody)) {
      const metadata = (value.metadata ?? {}) as Record<string, unknown>;
      const to = e164(metadata.display_phone_number) ?? '';
      for (const m of arrayOf(value.messages)) {
        const from = e164(m.from);
        if (typeof m.id !== 'string' || !m.id || !from) continue;
        out.push({ kind: 'message', providerMessageId: m.id, from, to, text: textOf(m) });
      }
    }
    return out;
  }
}

/**
 * The Cloud API requests of a message, in the order they are tried: its text (delivered inside the
 * 24-hour window), then its template with body parameters (outside it).
 */
function requestBodies(message: ProviderMessage): Record<string, unknown>[] {
  const content = message.content as WhatsappContent;
  const common = {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: message.to,
    // Echoed in the message's status notifications.
    biz_opaque_callback_data: message.reference,
  };
  const out: Record<string, unknown>[] = [];
  if (typeof content.text === 'string' && content.text) {
    out.push({ ...common, type: 'text', text: { preview_url: false, body: content.text } });
  }
  const t = content.template;
  if (t && t.name && t.language) {
    const template: Record<string, unknown> = { name: t.name, language: { code: t.language } };
    if (t.parameters?.length) {
      template.components = [
        { type: 'body', parameters: t.parameters.map((text) => ({ type: 'text', text })) },
      ];
    }
    out.push({ ...common, type: 'template', template });
  }
  return out;
}

/**
 * A 4xx refusal. 131026 bounces the address (blocked); 131047 fails this message for good: the
 * same free text would be refused again until the person writes, so it is not retried (the send
 * path sends a template instead) and the address stays sendable. An invalid `to` marks the number
 * invalid. Anything else is our request or our account's setup (template missing or paused,
 * parameters, payment): the message failed, the address did not bounce.
 */
function refusal(error: GraphError | undefined, status: number, said: string): SendOutcome {
  const code = error?.code;
  if (code === UNDELIVERABLE) return rejected(true, '131026', said, 'blocked');
  if (code === OUTSIDE_WINDOW) return rejected(true, 'outside_window', said);
  if (code === MARKETING_OPT_OUT) return rejected(true, 'opted_out', said);
  if (INVALID_PARAMETER_CODES.has(code ?? -1) && INVALID_TO.test(error?.details ?? '')) {
    return rejected(true, String(code), said, 'invalid');
  }
  return rejected(false, code !== undefined ? String(code) : `http_${status}`, said);
}

function rejected(
  permanent: boolean,
  code: string,
  message: string,
  addressEffect?: AddressEffect,
): SendOutcome {
  return { kind: 'rejected', permanent, code, message, ...(addressEffect && { addressEffect }) };
}

/** Graph's `error_data.details`, when it says more than the message. */
function detailsOf(error: GraphError | undefined): string {
  const d = error?.details;
  return d && !(error?.message ?? '').includes(d) ? ` (${d})` : '';
}

/** Every `messages` change value of a webhook body (none when it is not Meta's envelope). */
function changeValues(raw: Buffer): Record<string, unknown>[] {
  const body = parseJson(raw);
  if (body?.object !== 'whatsapp_business_account') return [];
  const out: Record<string, unknown>[] = [];
  for (const entry of arrayOf(body.entry)) {
    for (const change of arrayOf(entry.changes)) {
      if (change.field === 'messages' && change.value && typeof change.value === 'object') {
        out.push(change.value as Record<string, unknown>);
      }
    }
  }
  return out;
}

/** The text of an inbound message: its body, a quick-reply button's text, a reply's title. */
function textOf(m: Record<string, unknown>): string {
  const pick = (o: unknown, key: string): string | undefined => {
    const v = o && typeof o === 'object' ? (o as Record<string, unknown>)[key] : undefined;
    return typeof v === 'string' ? v : undefined;
  };
  const interactive = m.interactive as Record<string, unknown> | undefined;
  return (
    pick(m.text, 'body') ??
    pick(m.button, 'text') ??
    pick(interactive?.button_reply, 'title') ??
    pick(interactive?.list_reply, 'title') ??
    pick(m[String(m.type)], 'caption') ??
    ''
  );
}

/** A WhatsApp id or display number (digits, perhaps formatted) as E.164. */
function e164(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const d = value.replace(/\D/g, '');
  return d.length >= 7 && d.length <= 15 ? `+${d}` : undefined;
}

function arrayOf(v: unknown): Record<string, unknown>[] {
  return Array.isArray(v)
    ? v.filter((x): x is Record<string, unknown> => !!x && typeof x === 'object')
    : [];
}

function graphError(body: Record<string, unknown> | undefined): GraphError | undefined {
  const e = body?.error;
  if (!e || typeof e !== 'object') return undefined;
  const { code, message, error_data } = e as Record<string, unknown>;
  const details = (error_data as Record<string, unknown> | undefined)?.details;
  // Some gateways in front of Graph give the code as a string.
  const n = typeof code === 'string' && /^\d+$/.test(code) ? Number(code) : code;
  return {
    code: typeof n === 'number' ? n : undefined,
    message: typeof message === 'string' ? message : undefined,
    details: typeof details === 'string' ? details : undefined,
  };
}

function credentials(account: ProviderAccount): WhatsappCredentials {
  const { accessToken, appSecret } = account.credentials;
  return {
    accessToken: typeof accessToken === 'string' && accessToken ? accessToken : undefined,
    appSecret: typeof appSecret === 'string' && appSecret ? appSecret : undefined,
  };
}
