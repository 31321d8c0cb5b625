import { countryOfPhone, normalisePhone, parsePhone } from './phone-number';

describe('normalisePhone', () => {
  it.each([
    ['+1 (415) 555-0100', '+14155550100'],
    ['0044 7700 900123', '+447700900123'],
    ['14155550100', '+14155550100'],
    ['+49.151.2345.6789', '+4915123456789'],
  ])('normalises %s to %s', (input, expected) => {
    expect(normalisePhone(input)).toBe(expected);
  });

  it.each(['', 'abc', '+0123456789', '+1234567', '+1234567890123456', '12-34'])(
    'refuses %s',
    (input) => {
      expect(normalisePhone(input)).toBeNull();
    },
  );
});

describe('countryOfPhone', () => {
  it.each([
    ['+14155550100', 'US'],
    ['+447700900123', 'GB'],
    ['+4915123456789', 'DE'],
    ['+353861234567', 'IE'],
    ['+35812345678', 'FI'],
    ['+882163456789', null],
  ])('%s belongs to %s', (phone, country) => {
    expect(countryOfPhone(phone)).toBe(country);
  });
});

describe('parsePhone (one parse for the import)', () => {
  it.each([
    '+1 (415) 555-0100',
    '0044 7700 900123',
    '14155550100',
    '+49.151.2345.6789',
    '+353861234567',
    '+35812345678',
    '+882163456789',
    '+14155550100',
    '+440201234567',
    '+4402012345678',
    '+390612345678',
    '+5491123456789',
    '+79161234567',
    '+18095551234',
    '',
    'abc',
    '+0123456789',
    '+1234567',
  ])('%s: the same answers as normalisePhone and countryOfPhone', (input) => {
    const e164 = normalisePhone(input);
    const parts = parsePhone(input);
    if (!e164) {
      expect(parts).toBeNull();
      return;
    }
    expect(parts).toMatchObject({ e164, country: countryOfPhone(e164) });
    // canonical is only claimed when it holds (a trunk 0 dropped, as in +44 0..., is not).
    if (parts!.canonical) expect(normalisePhone(e164)).toBe(e164);
    if (input === '+14155550100') expect(parts!.canonical).toBe(true);
  });
});
