// The one message of a provider account's test send (§17 `POST /channel-providers/{id}/test`):
// an address of the account's channel and the content that channel takes.
import { normalisePhone } from '../contacts/phone-number';
import { FieldError, ValidationFailedError } from '../errors/domain-errors';
import type { ProviderName } from './channel-provider.entity';
import type { ProviderChannel, ProviderMessage } from './provider-adapter';

export interface TestMessageInput {
  to: string;
  text?: string;
  title?: string;
  body?: string;
  platform?: 'ios' | 'android' | 'web';
}

/** An SMS of up to 10 segments; a push notification's title and body as APNs and FCM show them. */
const MAX_TEXT = 1600;
const MAX_PUSH_FIELD = 1000;
const MAX_ADDRESS = 4096;

export function checkTestMessage(
  channel: ProviderChannel,
  provider: ProviderName,
  input: TestMessageInput,
): Pick<ProviderMessage, 'to' | 'platform' | 'content'> {
  const errors: FieldError[] = [];
  const bad = (field: string, rule: string, message: string) =>
    errors.push({ field, rule, message });
  let to = input.to.trim();
  if (!to || to.length > MAX_ADDRESS) bad('to', 'type', 'to must be an address of the channel');
  if (channel === 'sms' || channel === 'whatsapp') {
    const phone = normalisePhone(to);
    if (!phone) bad('to', 'type', 'to must be a phone number in E.164 format, e.g. +14155550100');
    else to = phone;
  }
  if (channel === 'push') {
    if (!input.title && !input.body) bad('body', 'required', 'Give a title or a body');
    for (const f of ['title', 'body'] as const) {
      if ((input[f]?.length ?? 0) > MAX_PUSH_FIELD) {
        bad(f, 'maxLength', `${f} must be at most ${MAX_PUSH_FIELD} characters`);
      }
    }
    if (input.text !== undefined) bad('text', 'unknown', 'A push takes a title and a body');
  } else {
    if (!input.text) bad('text', 'required', 'text is required');
    else if (input.text.length > MAX_TEXT) {
      bad('text', 'maxLength', `text must be at most ${MAX_TEXT} characters`);
    }
    for (const f of ['title', 'body', 'platform'] as const) {
      if (input[f] !== undefined) bad(f, 'unknown', `A ${channel} message takes a text`);
    }
  }
  if (errors.length) throw new ValidationFailedError(errors);
  if (channel !== 'push') return { to, content: { text: input.text! } };
  return {
    to,
    // The account's own provider tells the platform when the body does not: APNs serves iOS.
    platform: input.platform ?? (provider === 'apns' ? 'ios' : 'android'),
    content: { title: input.title, body: input.body },
  };
}
