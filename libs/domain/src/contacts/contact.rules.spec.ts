// The contact field rules, once for the API's DTOs and the import's row checks: each rule's
// message, the order its constraints are checked in, the decorators and the OpenAPI keywords.
import { IsOptional, validateSync } from 'class-validator';
import {
  CONTACT_RULES,
  checkContactRule,
  checkPhone,
  checkTagNames,
  notAPhoneNumber,
  ruleDecorators,
  ruleSchema,
  statusOf,
  TAGS_PER_CONTACT,
  tagCountDecorator,
} from './contact.rules';

/** Messages class-validator gives for one decorated property holding `value`. */
function decoratorMessages(decorators: PropertyDecorator[], value: unknown): string[] {
  class Probe {
    field: unknown;
  }
  for (const d of decorators) d(Probe.prototype, 'field');
  IsOptional()(Probe.prototype, 'field');
  const probe = Object.assign(new Probe(), { field: value });
  return validateSync(probe).flatMap((e) => Object.values(e.constraints ?? {}));
}

describe('checkContactRule', () => {
  it('passes values within the rule', () => {
    expect(checkContactRule('email', 'ann@example.com', 'email')).toBeNull();
    expect(checkContactRule('status', 'archived', 'status')).toBeNull();
    expect(checkContactRule('timezone', 'Europe/Paris', 'timezone')).toBeNull();
    expect(checkContactRule('language', 'pt-BR', 'language')).toBeNull();
    expect(checkContactRule('name', 'x'.repeat(200), 'firstName')).toBeNull();
  });

  it("answers the first broken constraint's message with the field's name", () => {
    expect(checkContactRule('email', 'not-an-email', 'email')).toBe('email must be an email');
    // Too long and not an email: the email constraint comes first.
    expect(checkContactRule('email', 'x'.repeat(400), 'emails.0')).toBe(
      'emails.0 must be an email',
    );
    expect(checkContactRule('telegramUsername', 'u'.repeat(65), 'username')).toBe(
      'username must be shorter than or equal to 64 characters',
    );
    expect(checkContactRule('telegramUsername', '', 'username')).toBe(
      'username must be longer than or equal to 1 characters',
    );
    expect(checkContactRule('status', 'deleted', 'status')).toBe(
      'status must be one of the following values: active, inactive, archived',
    );
    expect(checkContactRule('timezone', 'Mars/Olympus', 'tz')).toBe(
      'tz must be a valid IANA time-zone',
    );
    expect(checkContactRule('name', 'x'.repeat(201), 'lastName')).toBe(
      'lastName must be shorter than or equal to 200 characters',
    );
    expect(checkContactRule('phoneNumber', '+1234', 'phone')).toBe(
      'phone must be longer than or equal to 8 characters',
    );
  });
});

describe('checkTagNames', () => {
  it('allows up to 100 names of 1 to 100 characters', () => {
    const names = Array.from({ length: TAGS_PER_CONTACT }, (_, i) => `t${i}`);
    expect(checkTagNames(names)).toBeNull();
    expect(checkTagNames([...names, 'one more'])).toBe(
      'tags must contain no more than 100 elements',
    );
    expect(checkTagNames(['ok', 'y'.repeat(101)], 'row.tags')).toBe(
      'each value in row.tags must be shorter than or equal to 100 characters',
    );
    expect(checkTagNames([''])).toBe(
      'each value in tags must be longer than or equal to 1 characters',
    );
  });
});

describe('statusOf', () => {
  it('reads a status in any letter case, and null for anything else', () => {
    expect(statusOf(' Active ')).toBe('active');
    expect(statusOf('ARCHIVED')).toBe('archived');
    expect(statusOf('deleted')).toBeNull();
    expect(statusOf('')).toBeNull();
  });
});

describe('checkPhone', () => {
  it('answers E.164 with the country of its calling code', () => {
    expect(checkPhone(' +1 (415) 555-0100 ', 'phone')).toEqual({
      ok: true,
      value: { e164: '+14155550100', countryCode: 'US', canonical: true },
    });
    expect(checkPhone('0044 20 7946 0958', 'phone')).toEqual({
      ok: true,
      value: { e164: '+442079460958', countryCode: 'GB', canonical: true },
    });
  });

  it('says when the E.164 form is not the string it parsed', () => {
    // The national trunk prefix after the calling code is dropped.
    expect(checkPhone('+44020 7946 0958', 'phone')).toEqual({
      ok: true,
      value: { e164: '+442079460958', countryCode: 'GB', canonical: false },
    });
  });

  it('refuses a value that is too short, not a number, or of no country', () => {
    expect(checkPhone('+1415', 'row.phone')).toEqual({
      ok: false,
      message: 'row.phone must be longer than or equal to 8 characters',
    });
    expect(checkPhone('+999 1234 5678', 'phone')).toEqual({
      ok: false,
      message: notAPhoneNumber('phone'),
    });
    expect(checkPhone('+800 1234 5678', 'phone')).toEqual({
      ok: false,
      message: "phone: the country cannot be derived from this number's calling code",
    });
  });

  it('names the field in the phone number message', () => {
    expect(notAPhoneNumber('sms.0.phoneNumber')).toBe(
      'sms.0.phoneNumber must be an international phone number (E.164, e.g. +14155550100)',
    );
  });
});

describe('rule decorators and schemas', () => {
  it('give the messages of checkContactRule', () => {
    const messages = decoratorMessages(ruleDecorators('email'), 'x'.repeat(400));
    expect(messages.sort()).toEqual([
      checkContactRule('email', 'x'.repeat(400), 'field'),
      'field must be shorter than or equal to 320 characters',
    ]);
    expect(decoratorMessages(ruleDecorators('email'), 'ann@example.com')).toEqual([]);
    expect(decoratorMessages(ruleDecorators('tagName', true), ['ok', ''])).toEqual([
      'each value in field must be longer than or equal to 1 characters',
    ]);
  });

  it('has one decorator per constraint', () => {
    for (const name of Object.keys(CONTACT_RULES) as (keyof typeof CONTACT_RULES)[]) {
      expect(ruleDecorators(name)).toHaveLength(CONTACT_RULES[name].length);
    }
  });

  it('limits the number of tags with the same message as checkTagNames', () => {
    const tags = Array.from({ length: TAGS_PER_CONTACT + 1 }, (_, i) => `t${i}`);
    expect(decoratorMessages([tagCountDecorator()], tags)).toEqual([
      'field must contain no more than 100 elements',
    ]);
    expect(decoratorMessages([tagCountDecorator()], tags.slice(1))).toEqual([]);
  });

  it('states each rule in OpenAPI keywords', () => {
    expect(ruleSchema('email')).toEqual({ format: 'email', maxLength: 320 });
    expect(ruleSchema('phoneNumber')).toEqual({ minLength: 8, maxLength: 32 });
    expect(ruleSchema('status')).toEqual({});
  });
});
