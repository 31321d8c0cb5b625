import { IdempotencyService, requestFingerprint } from './idempotency.service';

describe('requestFingerprint', () => {
  it('is the same for the same body whatever its key order, and differs for another body', () => {
    const a = {
      from: 'a@example.com',
      to: ['b@example.com'],
      track: { opens: true, clicks: false },
    };
    const b = {
      track: { clicks: false, opens: true },
      to: ['b@example.com'],
      from: 'a@example.com',
    };
    expect(requestFingerprint(a)).toBe(requestFingerprint(b));
    expect(requestFingerprint(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(requestFingerprint({ ...a, to: ['c@example.com'] })).not.toBe(requestFingerprint(a));
    // Array order is part of the request.
    expect(requestFingerprint({ to: ['x', 'y'] })).not.toBe(requestFingerprint({ to: ['y', 'x'] }));
    expect(requestFingerprint({ a: '1' })).not.toBe(requestFingerprint({ a: 1 }));
    expect(requestFingerprint(undefined)).toBe(requestFingerprint(null));
  });
});

describe('IdempotencyService.parseKey', () => {
  it('takes 1 to 255 printable ASCII characters and refuses anything else with a 422', () => {
    expect(IdempotencyService.parseKey('order-42/retry #1')).toBe('order-42/retry #1');
    expect(IdempotencyService.parseKey('k'.repeat(255))).toHaveLength(255);
    for (const bad of ['', 'k'.repeat(256), 'clé', 'tab\there', ['a', 'b'], 42]) {
      expect(() => IdempotencyService.parseKey(bad)).toThrow(
        expect.objectContaining({ code: 'E_VALIDATION_ERROR' }),
      );
    }
  });
});
