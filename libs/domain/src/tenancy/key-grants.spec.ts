import { ForbiddenError } from '../errors/domain-errors';
import { assertChangeAllowed, assertRevokeAllowed, grantForNewKey, KeyGrant } from './key-grants';

const T = new Date('2030-01-01T00:00:00Z');
const later = new Date(T.getTime() + 1);
const earlier = new Date(T.getTime() - 1);

const caller: KeyGrant = {
  id: 'caller',
  scopes: ['keys:manage', 'contacts:read'],
  rateLimitPerMinute: 100,
  rateLimitPerDay: 1000,
  expiresAt: T,
};

describe('key grants (§16)', () => {
  describe('a new key', () => {
    it('takes only scopes the caller holds', () => {
      expect(() => grantForNewKey(caller, { scopes: ['messages:send'] })).toThrow(ForbiddenError);
      expect(grantForNewKey(caller, { scopes: ['contacts:read'] }).scopes).toEqual([
        'contacts:read',
      ]);
    });

    it('is bounded by the caller when limits are left out', () => {
      expect(grantForNewKey(caller, { scopes: ['contacts:read'] })).toMatchObject({
        rateLimitPerMinute: 100,
        rateLimitPerDay: 1000,
        expiresAt: T,
      });
      const roomy = { ...caller, rateLimitPerMinute: 5000, rateLimitPerDay: null, expiresAt: null };
      expect(grantForNewKey(roomy, { scopes: ['contacts:read'] })).toMatchObject({
        rateLimitPerMinute: 300,
        rateLimitPerDay: null,
        expiresAt: null,
      });
    });

    it.each([
      ['rateLimitPerMinute', { rateLimitPerMinute: 101 }],
      ['rateLimitPerDay', { rateLimitPerDay: 1001 }],
      ['rateLimitPerDay', { rateLimitPerDay: null }],
      ['expiresAt', { expiresAt: later }],
      ['expiresAt', { expiresAt: null }],
    ])('refuses %s beyond the caller (%o)', (field, extra) => {
      expect(() => grantForNewKey(caller, { scopes: ['contacts:read'], ...extra })).toThrow(
        new RegExp(field),
      );
    });

    it('accepts limits up to the caller', () => {
      expect(
        grantForNewKey(caller, {
          scopes: ['contacts:read'],
          rateLimitPerMinute: 100,
          rateLimitPerDay: 1000,
          expiresAt: earlier,
        }),
      ).toMatchObject({ rateLimitPerMinute: 100, expiresAt: earlier });
    });
  });

  describe('a change', () => {
    it('of its own key never raises a limit, extends the expiry or adds a scope', () => {
      for (const change of [
        { rateLimitPerMinute: 101 },
        { rateLimitPerDay: 1001 },
        { rateLimitPerDay: null },
        { expiresAt: later },
        { expiresAt: null },
        { scopes: ['keys:manage' as const, 'messages:send' as const] },
      ]) {
        expect(() => assertChangeAllowed(caller, caller, change)).toThrow(ForbiddenError);
      }
      expect(() =>
        assertChangeAllowed(caller, caller, {
          rateLimitPerMinute: 1,
          rateLimitPerDay: 1000,
          expiresAt: earlier,
          scopes: ['keys:manage'],
        }),
      ).not.toThrow();
    });

    it('of another key stays within the caller, or lowers what the key already has', () => {
      const big: KeyGrant = {
        id: 'big',
        scopes: ['contacts:read'],
        rateLimitPerMinute: 5000,
        rateLimitPerDay: null,
        expiresAt: null,
      };
      expect(() => assertChangeAllowed(caller, big, { rateLimitPerMinute: 4000 })).not.toThrow();
      expect(() => assertChangeAllowed(caller, big, { rateLimitPerMinute: 5001 })).toThrow();
      expect(() => assertChangeAllowed(caller, big, { rateLimitPerDay: null })).not.toThrow();
      expect(() => assertChangeAllowed(caller, big, { expiresAt: later })).not.toThrow();
      const small: KeyGrant = { ...big, id: 'small', rateLimitPerMinute: 10, rateLimitPerDay: 10 };
      expect(() => assertChangeAllowed(caller, small, { rateLimitPerMinute: 100 })).not.toThrow();
      expect(() => assertChangeAllowed(caller, small, { rateLimitPerMinute: 101 })).toThrow();
      expect(() => assertChangeAllowed(caller, small, { rateLimitPerDay: null })).toThrow();
    });

    it('of a key holding scopes the caller lacks is refused, whatever it changes', () => {
      const wider: KeyGrant = { ...caller, id: 'wider', scopes: ['messages:send'] };
      expect(() => assertChangeAllowed(caller, wider, {})).toThrow(ForbiddenError);
      // Not even narrowing it: that would take away what the caller could not give.
      expect(() => assertChangeAllowed(caller, wider, { scopes: ['contacts:read'] })).toThrow(
        ForbiddenError,
      );
    });
  });

  it('revokes itself or keys within its scopes', () => {
    expect(() => assertRevokeAllowed(caller, caller)).not.toThrow();
    expect(() =>
      assertRevokeAllowed(caller, { ...caller, id: 'x', scopes: ['contacts:read'] }),
    ).not.toThrow();
    expect(() =>
      assertRevokeAllowed(caller, { ...caller, id: 'y', scopes: ['webhooks:write'] }),
    ).toThrow(ForbiddenError);
  });
});
