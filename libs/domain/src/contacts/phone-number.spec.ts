import { countryOfPhone, normalisePhone } from './phone-number';

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
