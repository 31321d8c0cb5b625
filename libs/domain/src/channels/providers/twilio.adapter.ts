// SMS through Twilio Programmable Messaging (§17): `POST /2010-04-01/Accounts/{sid}/Messages.json`,
// form-encoded with HTTP basic auth; status callbacks and incoming messages arrive form-encoded,
// signed with X-Twilio-Signature (HMAC-SHA1 under the auth token over the URL and the sorted
// parameters). Works with Twilio-compatible APIs through `settings.apiBaseUrl`.
import { Injectable } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type {
  InboundProviderMessage,
  ProviderAccount,
  ProviderAdapter,
  ProviderCallback,
  ProviderMessage,
  SendOutcome,
  SmsContent,
  StatusUpdate,
} from '../provider-adapter';
import { ProviderHttp, ProviderUnreachableError } from '../provider-http';
import { parseJson, retryAfterMs, scrub, stringSetting } from './provider-answers';
import { countSmsSegments } from '../sms-segments';

export const TWILIO_DEFAULT_API_BASE_URL = 'https://api.twilio.com';

/** API refusals of the address itself (twilio.com/docs/api/errors): the record is invalid for SMS. */
const INVALID_ADDRESS_CODES = new Set([
  21211, // Invalid 'To' phone number
  21614, // 'To' number is not a valid mobile number
  21635, // 'To' number cannot be a landline
]);
/** The recipient texted STOP to this sender: Twilio refuses every message to it until START. */
const UNSUBSCRIBED = 21610;

/**
 * Delivery error codes of an `undelivered` or `failed` status that refuse the address for good, so
 * the message is `bounced` (twilio.com/docs/api/errors/300xx). Every other code is `failed`: a
 * retry or a later message may well arrive.
 *
 * | Code  | Twilio's name                        | Ours      | Why                                        |
 * |-------|--------------------------------------|-----------|--------------------------------------------|
 * | 30003 | Unreachable destination handset      | failed    | phone off or out of coverage; transient    |
 * | 30004 | Message blocked                      | failed    | the recipient or carrier may lift it       |
 * | 30005 | Unknown destination handset          | bounced   | the number does not exist                  |
 * | 30006 | Landline or unreachable carrier      | bounced   | the number cannot receive SMS              |
 * | 30007 | Message filtered                     | failed    | the carrier filtered the content or sender |
 * | 30008 | Unknown error                        | failed    |                                            |
 * | 21211, 21614, 21635 (async, through a Messaging Service): invalid or non-mobile → bounced    |
 * | 21610 (async): the recipient unsubscribed → bounced                                          |
 */
const PERMANENT_DELIVERY_CODES = new Set([30005, 30006, 21610, ...INVALID_ADDRESS_CODES]);

/** Twilio's MessageStatus → ours; `undelivered` and `failed` depend on the error code. */
const STATUS_MAP: Record<string, StatusUpdate['status'] | 'by-code'> = {
  queued: 'sent',
  accepted: 'sent',
  scheduled: 'sent',
  sending: 'sent',
  sent: 'sent',
  partially_delivered: 'sent',
  delivered: 'delivered',
  read: 'read',
  undelivered: 'by-code',
  failed: 'by-code',
  canceled: 'failed',
};

interface TwilioCredentials {
  accountSid: string;
  authToken: string;
}

@Injectable()
export class TwilioAdapter implements ProviderAdapter {
  readonly channel = 'sms' as const;
  readonly provider = 'twilio';
  /** Twilio takes TwiML from a messaging webhook: an empty response sends no reply. */
  readonly callbackReply = {
    contentType: 'text/xml',
    body: '<?xml version="1.0" encoding="UTF-8"?><Response></Response>',
  };

  constructor(private readonly http: ProviderHttp) {}

  async send(account: ProviderAccount, message: ProviderMessage): Promise<SendOutcome> {
    const creds = credentials(account);
    if (!creds)
      return { kind: 'unauthorized', message: 'Twilio account SID or auth token missing' };
    const content = message.content as SmsContent;
    const form = new URLSearchParams({ To: message.to });
    const service = stringSetting(account, 'messagingServiceSid');
    // A Messaging Service picks the sender itself (its pool, sticky sender, geo-match).
    const from = stringSetting(account, 'from');
    if (service) form.set('MessagingServiceSid', service);
    else if (from) form.set('From', from);
    if (content.text) form.set('Body', content.text);
    for (const url of content.mediaUrls ?? []) form.append('MediaUrl', url);
    form.set('StatusCallback', message.statusCallbackUrl);

    const base = (stringSetting(account, 'apiBaseUrl') ?? TWILIO_DEFAULT_API_BASE_URL).replace(
      /\/+$/,
      '',
    );
    const url = `${base}/2010-04-01/Accounts/${encodeURIComponent(creds.accountSid)}/Messages.json`;
    let res;
    try {
      res = await this.http.request({
        method: 'POST',
        url,
        headers: {
          Authorization:
            'Basic ' + Buffer.from(`${creds.accountSid}:${creds.authToken}`).toString('base64'),
          'Content-Type': 'application/x-www-form-urlencoded',
          Accept: 'application/json',
        },
        body: form.toString(),
      });
    } catch (err) {
      if (err instanceof ProviderUnreachableError)
        return { kind: 'unavailable', message: err.message };
      throw err;
    }

    const body = parseJson(res.body);
    const code = typeof body?.code === 'number' ? body.code : undefined;
    const said = scrub(
      code !== undefined
        ? `Twilio ${code}: ${String(body?.message ?? '')}`
        : `Twilio answered HTTP ${res.status}`,
      [creds.authToken],
    );
    if (res.status === 200 || res.status === 201) {
      if (typeof body?.sid !== 'string')
        return { kind: 'unavailable', message: 'Twilio answer without a message sid' };
      const reported = Number(body.num_segments);
      const segments =
        reported > 0 ? reported : Math.max(1, countSmsSegments(content.text ?? '').segments);
      return { kind: 'accepted', providerMessageId: body.sid, status: 'sent', segments };
    }
    if (res.status === 401 || code === 20003) return { kind: 'unauthorized', message: said };
    if (res.status === 429)
      return { kind: 'throttled', retryAfterMs: retryAfterMs(res.headers['retry-after']) };
    if (res.status >= 500) return { kind: 'unavailable', message: said };
    if (res.status >= 400 && code !== undefined && INVALID_ADDRESS_CODES.has(code)) {
      return {
        kind: 'rejected',
        permanent: true,
        addressEffect: 'invalid',
        code: String(code),
        message: said,
      };
    }
    if (res.status >= 400 && code === UNSUBSCRIBED) {
      // Not a bad number: its owner opted out (Twilio keeps its own STOP list per sender).
      return {
        kind: 'rejected',
        permanent: true,
        code: 'opted_out',
        message: said,
      };
    }
    if (res.status >= 400) {
      // Our request or our account's setup (sender, region permissions, body length): the message
      // failed, the address did not bounce.
      const c = code !== undefined ? String(code) : `http_${res.status}`;
      return { kind: 'rejected', permanent: false, code: c, message: said };
    }
    return { kind: 'unavailable', message: said };
  }

  verifySignature(account: ProviderAccount, callback: ProviderCallback): boolean {
    const creds = credentials(account);
    const given = callback.headers['x-twilio-signature'];
    if (!creds || !given || callback.method.toUpperCase() !== 'POST') return false;
    const params = formParams(callback.rawBody);
    const givenBuf = Buffer.from(given);
    // Twilio signs the URL as it requested it; its libraries also accept the default port
    // written out or left off, as proxies differ on it.
    return urlVariants(callback.url).some((url) => {
      const expected = Buffer.from(twilioSignature(creds.authToken, url, params));
      return expected.length === givenBuf.length && timingSafeEqual(expected, givenBuf);
    });
  }

  parseStatus(callback: ProviderCallback): StatusUpdate[] {
    const p = new URLSearchParams(callback.rawBody.toString('utf8'));
    const status = p.get('MessageStatus');
    const sid = p.get('MessageSid');
    if (!status || !sid) return [];
    const mapped = STATUS_MAP[status];
    if (!mapped) return [];
    const errorCode = p.get('ErrorCode') || undefined;
    const update: StatusUpdate = {
      providerMessageId: sid,
      status:
        mapped === 'by-code'
          ? PERMANENT_DELIVERY_CODES.has(Number(errorCode))
            ? 'bounced'
            : 'failed'
          : mapped,
    };
    if (errorCode) {
      update.code = errorCode;
      update.description = `Twilio ${status}, error ${errorCode}`;
    }
    return [update];
  }

  parseInbound(callback: ProviderCallback): InboundProviderMessage[] {
    const p = new URLSearchParams(callback.rawBody.toString('utf8'));
    const sid = p.get('MessageSid');
    const body = p.get('Body');
    if (p.has('MessageStatus') || !sid || body === null) return [];
    return [
      {
        kind: 'message',
        providerMessageId: sid,
        from: p.get('From') ?? '',
        to: p.get('To') ?? '',
        text: body,
      },
    ];
  }
}

/** `X-Twilio-Signature`: base64 HMAC-SHA1 of the URL, then each parameter name and value by name. */
export function twilioSignature(
  authToken: string,
  url: string,
  params: Map<string, string[]>,
): string {
  let data = url;
  for (const name of [...params.keys()].sort()) {
    for (const value of [...params.get(name)!].sort()) data += name + value;
  }
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

function formParams(raw: Buffer): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [k, v] of new URLSearchParams(raw.toString('utf8')))
    out.set(k, [...(out.get(k) ?? []), v]);
  return out;
}

function urlVariants(raw: string): string[] {
  try {
    const u = new URL(raw);
    const port = u.protocol === 'https:' ? '443' : u.protocol === 'http:' ? '80' : '';
    if (!port || u.port) return [raw];
    const withPort = raw.replace(`${u.protocol}//${u.host}`, `${u.protocol}//${u.host}:${port}`);
    return [raw, withPort];
  } catch {
    return [raw];
  }
}

function credentials(account: ProviderAccount): TwilioCredentials | undefined {
  const { accountSid, authToken } = account.credentials;
  return typeof accountSid === 'string' && accountSid && typeof authToken === 'string' && authToken
    ? { accountSid, authToken }
    : undefined;
}
