// Phone numbers in E.164 (what is encrypted and blind-indexed) and the country a number belongs
// to when the caller does not say. No numbering-plan library: the calling-code table below covers
// the common codes; anything else needs an explicit countryCode.

/** `+` followed by 8 to 15 digits, the first not 0, or null when the input cannot be one. */
export function normalisePhone(input: string): string | null {
  let s = input.trim().replace(/[\s().\-/]/g, '');
  if (s.startsWith('00')) s = '+' + s.slice(2);
  if (!s.startsWith('+')) s = '+' + s;
  return /^\+[1-9]\d{7,14}$/.test(s) ? s : null;
}

// Calling code → ISO 3166-1 alpha-2 of its main country. Shared codes (+1, +7, +44...) resolve to
// the largest member; callers who care send countryCode.
const CALLING_CODES: Record<string, string> = {
  '1': 'US',
  '7': 'RU',
  '20': 'EG',
  '27': 'ZA',
  '30': 'GR',
  '31': 'NL',
  '32': 'BE',
  '33': 'FR',
  '34': 'ES',
  '36': 'HU',
  '39': 'IT',
  '40': 'RO',
  '41': 'CH',
  '43': 'AT',
  '44': 'GB',
  '45': 'DK',
  '46': 'SE',
  '47': 'NO',
  '48': 'PL',
  '49': 'DE',
  '51': 'PE',
  '52': 'MX',
  '53': 'CU',
  '54': 'AR',
  '55': 'BR',
  '56': 'CL',
  '57': 'CO',
  '58': 'VE',
  '60': 'MY',
  '61': 'AU',
  '62': 'ID',
  '63': 'PH',
  '64': 'NZ',
  '65': 'SG',
  '66': 'TH',
  '81': 'JP',
  '82': 'KR',
  '84': 'VN',
  '86': 'CN',
  '90': 'TR',
  '91': 'IN',
  '92': 'PK',
  '93': 'AF',
  '94': 'LK',
  '95': 'MM',
  '98': 'IR',
  '212': 'MA',
  '213': 'DZ',
  '216': 'TN',
  '234': 'NG',
  '233': 'GH',
  '254': 'KE',
  '255': 'TZ',
  '256': 'UG',
  '351': 'PT',
  '352': 'LU',
  '353': 'IE',
  '354': 'IS',
  '358': 'FI',
  '359': 'BG',
  '370': 'LT',
  '371': 'LV',
  '372': 'EE',
  '380': 'UA',
  '381': 'RS',
  '385': 'HR',
  '386': 'SI',
  '420': 'CZ',
  '421': 'SK',
  '852': 'HK',
  '880': 'BD',
  '886': 'TW',
  '966': 'SA',
  '971': 'AE',
  '972': 'IL',
  '974': 'QA',
};

/** The country of an E.164 number by its calling code, or null when the code is not in the table. */
export function countryOfPhone(e164: string): string | null {
  const digits = e164.replace(/^\+/, '');
  for (const len of [3, 2, 1]) {
    const country = CALLING_CODES[digits.slice(0, len)];
    if (country) return country;
  }
  return null;
}
