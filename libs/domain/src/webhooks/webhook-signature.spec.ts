// The X-Webhook-Signature header and its verification.
import fc from 'fast-check';
import { createHmac } from 'node:crypto';
import { generateWebhookSecret, signatureHeader, verifySignature } from './webhook-signature';

describe('webhook signature', () => {
  it('is t=<seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    const body = '{"delivery_id":"d","type":"test.event","timestamp":"x","data":{}}';
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
      .update(`1700000000.${body}`)
      .digest('hex');
    expect(signatureHeader(secret, 1700000000, body)).toBe(`t=1700000000,v1=${expected}`);
  });

  it('signs with the UTF-8 bytes of any secret, and verifies what it signs', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.integer({ min: 1, max: 2 ** 31 }), (s, body, t) => {
        const secret = s || generateWebhookSecret();
        const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
          .update(`${t}.${body}`, 'utf8')
          .digest('hex');
        expect(signatureHeader(secret, t, body)).toBe(`t=${t},v1=${expected}`);
        expect(
          verifySignature(secret, signatureHeader(secret, t, body), body, { nowSeconds: t }),
        ).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('verifies its own signatures and rejects any change of secret, body or time', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 2 ** 31 }), (body, t) => {
        const secret = generateWebhookSecret();
        const header = signatureHeader(secret, t, body);
        const opts = { nowSeconds: t };
        expect(verifySignature(secret, header, body, opts)).toBe(true);
        expect(verifySignature(generateWebhookSecret(), header, body, opts)).toBe(false);
        expect(verifySignature(secret, header, body + ' ', opts)).toBe(false);
        expect(verifySignature(secret, header.replace(`t=${t}`, `t=${t + 1}`), body, opts)).toBe(
          false,
        );
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a signature older than the tolerance', () => {
    const secret = generateWebhookSecret();
    const header = signatureHeader(secret, 1000, 'b');
    expect(verifySignature(secret, header, 'b', { nowSeconds: 1000 + 301 })).toBe(false);
    expect(verifySignature(secret, header, 'b', { nowSeconds: 1000 + 299 })).toBe(true);
  });
});
