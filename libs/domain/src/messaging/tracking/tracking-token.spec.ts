// Tracking tokens: signing, tampering and key rotation.
import { randomBytes } from 'node:crypto';
import { asOrgId } from '../../common/org-id';
import { TrackingTokens } from './tracking-token';

const ORG = asOrgId('0b3c8d52-46a7-4c8e-9a3d-6b2f3a1d9e01');
const MSG = 'f2a1d0c4-5b6e-4f7a-8b9c-0d1e2f3a4b5c';

describe(TrackingTokens.name, () => {
  const key = randomBytes(32);
  const tokens = new TrackingTokens([key]);

  it('round-trips open and click claims', () => {
    const open = tokens.sign({
      kind: 'open',
      organizationId: ORG,
      messageId: MSG,
      recipientIndex: 7,
    });
    expect(tokens.verify(open, 'open')).toEqual({
      kind: 'open',
      organizationId: ORG,
      messageId: MSG,
      recipientIndex: 7,
    });
    const url = 'https://example.test/a?b=c&d=é';
    const click = tokens.sign({
      kind: 'click',
      organizationId: ORG,
      messageId: MSG,
      recipientIndex: 0,
      url,
    });
    expect(tokens.verify(click, 'click')?.url).toBe(url);
    expect(tokens.verify(click, 'open')).toBeNull();
    expect(tokens.verify(open, 'click')).toBeNull();
  });

  it('refuses every single-character change', () => {
    const click = tokens.sign({
      kind: 'click',
      organizationId: ORG,
      messageId: MSG,
      recipientIndex: 1,
      url: 'https://example.test/',
    });
    for (let i = 0; i < click.length; i++) {
      const c = click[i] === 'A' ? 'B' : 'A';
      expect(tokens.verify(click.slice(0, i) + c + click.slice(i + 1), 'click')).toBeNull();
    }
  });

  it('verifies under an older key after rotation, and not under an unknown one', () => {
    const old = tokens.sign({
      kind: 'open',
      organizationId: ORG,
      messageId: MSG,
      recipientIndex: 0,
    });
    expect(new TrackingTokens([randomBytes(32), key]).verify(old, 'open')).not.toBeNull();
    expect(new TrackingTokens([randomBytes(32)]).verify(old, 'open')).toBeNull();
  });
});
