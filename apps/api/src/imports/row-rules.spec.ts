// The import validates CSV cells with libs/domain/src/contacts/contact-rules.ts; the contacts API
// validates JSON bodies with its DTOs. This spec feeds both the same values and requires the same
// verdict (and, where the API answers with a class-validator message, the same message).
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import {
  checkEmail,
  checkLanguage,
  checkName,
  checkPhone,
  checkStatus,
  checkTagNames,
  checkTimezone,
  countryOfPhone,
  normalisePhone,
} from '@app/domain';
import { CreateEmailDto, CreateSmsDto } from '../contacts/contact-channels.dto';
import { CreateContactDto, UpdateContactDto } from '../contacts/contacts.dto';

function apiErrors(cls: new () => object, body: Record<string, unknown>): string[] {
  return validateSync(plainToInstance(cls, body) as object, {
    whitelist: true,
    forbidNonWhitelisted: true,
  }).flatMap((e) => Object.values(e.constraints ?? {}));
}

describe('contact rules shared by the contacts API and the import', () => {
  it.each([
    'ann@example.com',
    ' padded@example.com ',
    'first.last+tag@sub.example.co.uk',
    'no-at-sign.example.com',
    'two@@example.com',
    'trailing@dot.',
    'spaces in@example.com',
    `${'a'.repeat(310)}@example.com`,
    'ünïcode@example.com',
    '@example.com',
  ])('email %j: same verdict and message', (value) => {
    const api = apiErrors(CreateEmailDto, { email: value });
    const ours = checkEmail(value);
    expect(ours.ok).toBe(api.length === 0);
    if (!ours.ok) expect(api).toContain(ours.message);
  });

  it.each(['active', 'inactive', 'archived', 'deleted', 'ACTIVE ', ''])(
    'status %j: same verdict (the import also accepts any letter case)',
    (value) => {
      const api = apiErrors(UpdateContactDto, { status: value.trim().toLowerCase() });
      const ours = checkStatus(value);
      expect(ours.ok).toBe(api.length === 0);
      if (!ours.ok) expect(api).toContain(ours.message);
    },
  );

  it.each([
    '+14155550100',
    '0044 20 7946 0958',
    '+44 (20) 7946-0958',
    '415555',
    '12ab345678',
    '+999123456789',
    '+1415555010012345678901234567890123',
  ])('phone %j: same verdict as the SMS route (DTO, then the channel service)', (value) => {
    const dto = apiErrors(CreateSmsDto, { phoneNumber: value });
    const e164 = dto.length === 0 ? normalisePhone(value) : null;
    const apiOk = e164 !== null && countryOfPhone(e164) !== null;
    expect(checkPhone(value).ok).toBe(apiOk);
  });

  it.each(['Europe/Paris', 'America/Sao_Paulo', 'Mars/Olympus', 'UTC+2'])(
    'timezone %j: same verdict and message',
    (value) => {
      const api = apiErrors(UpdateContactDto, { timezone: value });
      const ours = checkTimezone(value);
      expect(ours.ok).toBe(api.length === 0);
      if (!ours.ok) expect(api).toContain(ours.message);
    },
  );

  it.each(['en', 'pt-BR', 'zh-Hant-TW', 'english!', 'x'.repeat(40)])(
    'language %j: same verdict',
    (value) => {
      const api = apiErrors(UpdateContactDto, { language: value });
      expect(checkLanguage(value).ok).toBe(api.length === 0);
    },
  );

  it.each([200, 201])('a first name of %i characters: same verdict and message', (n) => {
    const value = 'x'.repeat(n);
    const api = apiErrors(UpdateContactDto, { firstName: value });
    const ours = checkName(value, 'firstName');
    expect(ours.ok).toBe(api.length === 0);
    if (!ours.ok) expect(api).toContain(ours.message);
  });

  it.each([
    ['100 tags', Array.from({ length: 100 }, (_, i) => `t${i}`)],
    ['101 tags', Array.from({ length: 101 }, (_, i) => `t${i}`)],
    ['a 100-character tag', ['y'.repeat(100)]],
    ['a 101-character tag', ['y'.repeat(101)]],
  ])('%s: same verdict', (_name, tags) => {
    const api = apiErrors(CreateContactDto, { tags });
    expect(checkTagNames(tags).ok).toBe(api.length === 0);
  });
});
