import { randomBytes, randomUUID } from 'node:crypto';
import { TelegramLinkTokens } from './telegram-link-token';

describe('TelegramLinkTokens', () => {
  const key = randomBytes(32);
  const tokens = new TelegramLinkTokens([key]);
  const record = randomUUID();
  const provider = randomUUID();

  it("names the record it was signed for, within Telegram's start-parameter alphabet", () => {
    const token = tokens.sign(record, provider);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokens.verify(token, provider)).toBe(record);
  });

  it("refuses a token of another provider account's bot", () => {
    expect(tokens.verify(tokens.sign(record, provider), randomUUID())).toBeNull();
  });

  it('refuses a token whose id or MAC was changed, and anything not a token', () => {
    const token = tokens.sign(record, provider);
    const flipped = (token[0] === 'A' ? 'B' : 'A') + token.slice(1);
    expect(tokens.verify(flipped, provider)).toBeNull();
    // The next-to-last character: the last one's low bits are padding, which decoding ignores.
    const mac = token.length - 2;
    expect(
      tokens.verify(
        token.slice(0, mac) + (token[mac] === 'A' ? 'B' : 'A') + token.slice(mac + 1),
        provider,
      ),
    ).toBeNull();
    expect(tokens.verify('', provider)).toBeNull();
    expect(tokens.verify(`${token}x`, provider)).toBeNull();
  });

  it('verifies under an old key after a rotation, and refuses one signed by an unknown key', () => {
    const rotated = new TelegramLinkTokens([randomBytes(32), key]);
    expect(rotated.verify(tokens.sign(record, provider), provider)).toBe(record);
    const stranger = new TelegramLinkTokens([randomBytes(32)]);
    expect(stranger.verify(tokens.sign(record, provider), provider)).toBeNull();
  });
});
