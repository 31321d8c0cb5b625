// What every answer to hostile input must look like (decisions §4, §16): a 2xx of the route's kind,
// or a 4xx error envelope {success: false, message, code} whose code is one of the spec's list and
// matches its status, a validation error naming each field with a known rule, a 429 with
// retryAfter; never a 5xx, never a stack trace or SQL.
import { ERROR_CODES } from '@app/domain/errors/domain-errors';
import type { HttpAnswer } from './http';
import type { SuccessShape } from './routes';

const IN_LIST: ReadonlySet<string> = new Set(ERROR_CODES);

/**
 * Status → the codes allowed with it (§4; §16: 400 is the resend of a delivered delivery, a size
 * or time limit keeps its status with E_VALIDATION_ERROR).
 */
export const CODES_BY_STATUS: Record<number, string[]> = {
  400: ['E_BUSINESS_RULE_VIOLATION'],
  401: ['E_UNAUTHORIZED_ACCESS', 'E_UNAUTHORIZED'],
  402: ['INSUFFICIENT_CREDITS', 'SUBSCRIPTION_REQUIRED'],
  403: ['E_FORBIDDEN', 'E_INSUFFICIENT_SCOPE'],
  404: ['E_ROW_NOT_FOUND'],
  408: ['E_VALIDATION_ERROR'],
  409: ['E_BUSINESS_RULE_VIOLATION', 'E_CAMPAIGN_NOT_SENDABLE'],
  413: ['E_VALIDATION_ERROR'],
  422: ['E_VALIDATION_ERROR'],
  429: ['E_TOO_MANY_REQUESTS'],
  431: ['E_VALIDATION_ERROR'],
};

/** The rule names a 422 may carry (§4, and `unique` of docs/imports.md for a column mapped twice). */
export const VALIDATION_RULES = new Set([
  'unique',
  'required',
  'uuid',
  'email',
  'enum',
  'min',
  'max',
  'minLength',
  'maxLength',
  'url',
  'type',
  'unknown',
]);

/** Text that must never reach a client: stack frames, driver and SQL errors. */
const LEAK =
  /\n\s+at |\bat [\w.<>]+ \(.*:\d+:\d+\)|QueryFailedError|syntax error at or near|duplicate key value|violates [\w ]*constraint|relation "[^"]+" does not exist|invalid input syntax for|TypeError|ReferenceError|Cannot read propert|Maximum call stack|node_modules/;

function header(a: HttpAnswer, name: string): string {
  const v = a.headers[name];
  return Array.isArray(v) ? v.join(',') : (v ?? '');
}

/** Null when the answer is acceptable; otherwise what is wrong with it. */
export function checkAnswer(a: HttpAnswer, success: SuccessShape): string | null {
  const text = a.body.toString('utf8');
  if (a.status >= 500) return `status ${a.status}: ${text.slice(0, 200)}`;
  if (a.status >= 200 && a.status < 300) {
    if (success === 'csv') {
      return header(a, 'content-type').startsWith('text/csv') ? null : 'csv route without text/csv';
    }
    if (success === 'gif') {
      return header(a, 'content-type').startsWith('image/gif') ? null : 'pixel without image/gif';
    }
    if (success === 'health') return null;
    if (success === 'callback') {
      // A provider's callback is answered in the provider's terms (Twilio: TwiML; Meta's URL
      // check: the challenge as plain text).
      return /^(text\/xml|application\/json|text\/plain)/.test(header(a, 'content-type'))
        ? null
        : 'callback answer without text/xml, application/json or text/plain';
    }
    if (success === 'html') {
      return header(a, 'content-type').startsWith('text/html') ? null : 'page without text/html';
    }
    const body = a.json as Record<string, unknown> | undefined;
    if (!body || body.success !== true || typeof body.message !== 'string' || !('data' in body)) {
      return `2xx without the success envelope: ${text.slice(0, 200)}`;
    }
    return null;
  }
  if (a.status >= 300 && a.status < 400) {
    return success === 'redirect' && a.status === 302 && header(a, 'location')
      ? null
      : `unexpected redirect ${a.status}`;
  }
  if (a.status < 200) return `status ${a.status}`;

  // 4xx: the error envelope.
  const body = a.json as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object') {
    return `${a.status} without a JSON error envelope (content-type ${header(a, 'content-type')}): ${text.slice(0, 120)}`;
  }
  if (body.success !== false) return `${a.status} envelope without success: false`;
  if (typeof body.message !== 'string' || !body.message) return `${a.status} without a message`;
  if (typeof body.code !== 'string') return `${a.status} without a code`;
  if (!IN_LIST.has(body.code)) return `${a.status} with code ${body.code}, not in the spec's list`;
  const allowed = CODES_BY_STATUS[a.status];
  if (!allowed) return `unexpected status ${a.status} (${body.code})`;
  if (!allowed.includes(body.code)) return `${a.status} with code ${body.code}`;
  if (LEAK.test(text)) return `${a.status} leaks internals: ${text.slice(0, 200)}`;
  if (body.code === 'E_VALIDATION_ERROR') {
    const errors = body.errors;
    if (!Array.isArray(errors) || errors.length === 0) return `${a.status} without errors[]`;
    for (const e of errors as Array<Record<string, unknown>>) {
      if (
        typeof e?.field !== 'string' ||
        typeof e.rule !== 'string' ||
        typeof e.message !== 'string'
      ) {
        return `${a.status} error item not {field, rule, message}: ${JSON.stringify(e).slice(0, 120)}`;
      }
      if (!VALIDATION_RULES.has(e.rule))
        return `${a.status} with rule "${e.rule}" (field ${e.field})`;
    }
  }
  if (a.status === 429) {
    if (typeof body.retryAfter !== 'number') return '429 without retryAfter';
    if (!header(a, 'retry-after')) return '429 without Retry-After';
  }
  return null;
}
