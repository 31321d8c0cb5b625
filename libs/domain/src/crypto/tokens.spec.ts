import { generateApiKey, generateCuid, isWellFormedApiKey } from './tokens';

describe('tokens', () => {
  it('issues bk_live_ keys of 40 base62 characters', () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKey));
    expect(keys.size).toBe(200);
    for (const k of keys) expect(isWellFormedApiKey(k)).toBe(true);
  });

  it('makes 24-character lower-case cuids', () => {
    expect(generateCuid()).toMatch(/^[a-z][a-z0-9]{23}$/);
  });
});
