// The DSN and ARF samples of test/unsubscribe/fixtures, shaped like the reports real MTAs and
// mailbox providers send, with their placeholders filled in for one message of a test.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export type FixtureName = 'postfix-dsn' | 'postfix-delayed-dsn' | 'exchange-dsn' | 'arf-abuse';

export interface FixtureValues {
  MESSAGE_ID?: string;
  RECIPIENT?: string;
  BOUNCE_ADDRESS?: string;
  FEEDBACK_ADDRESS?: string;
  LIST_UNSUBSCRIBE?: string;
}

const DEFAULTS: Required<FixtureValues> = {
  MESSAGE_ID: '<01JD00000000000000000000AA@shop.example>',
  RECIPIENT: 'ann@example.org',
  BOUNCE_ADDRESS: 'bounces+x@bounces.test',
  FEEDBACK_ADDRESS: 'fbl@bounces.test',
  LIST_UNSUBSCRIBE: '<https://shop.example/unsubscribe>',
};

/** The fixture's bytes with every `{{NAME}}` replaced (CRLF line ends, as on the wire). */
export function fixture(name: FixtureName, values: FixtureValues = {}): Buffer {
  const all = { ...DEFAULTS, ...values };
  const text = readFileSync(join(__dirname, '..', 'fixtures', `${name}.eml`), 'utf8')
    .replace(/\{\{(\w+)\}\}/g, (_, k: keyof FixtureValues) => all[k])
    .replace(/\r?\n/g, '\r\n');
  return Buffer.from(text, 'utf8');
}
