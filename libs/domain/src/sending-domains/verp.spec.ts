import { randomBytes, randomUUID } from 'node:crypto';
import { VerpTokens } from './verp';

describe(VerpTokens.name, () => {
  const key = randomBytes(32);
  const tokens = new VerpTokens([key]);
  const claims = { messageId: randomUUID(), recipientIndex: 7 };

  it('signs a message and recipient into a 52-character hex token that verifies back', () => {
    const token = tokens.sign(claims);
    expect(token).toMatch(/^[0-9a-f]{52}$/);
    expect(tokens.verify(token)).toEqual(claims);
    // A server that upper-cases the local part does not break it.
    expect(tokens.verify(token.toUpperCase())).toEqual(claims);
    const address = tokens.address(claims, 'bounces.example.com');
    expect(address).toBe(`bounces+${token}@bounces.example.com`);
    expect(address.split('@')[0].length).toBeLessThanOrEqual(64);
    expect(tokens.verifyAddress(address)).toEqual(claims);
  });

  it('refuses a token that is altered, truncated or signed under another key', () => {
    const token = tokens.sign(claims);
    const flipped = token.slice(0, 10) + (token[10] === '0' ? '1' : '0') + token.slice(11);
    expect(tokens.verify(flipped)).toBeNull();
    expect(tokens.verify(token.slice(0, 50))).toBeNull();
    expect(tokens.verify(`${token}00`)).toBeNull();
    expect(new VerpTokens([randomBytes(32)]).verify(token)).toBeNull();
    expect(tokens.verifyAddress(`someone@example.com`)).toBeNull();
  });

  it('verifies tokens signed under an older key after a rotation', () => {
    const rotated = new VerpTokens([randomBytes(32), key]);
    expect(rotated.verify(tokens.sign(claims))).toEqual(claims);
  });
});
