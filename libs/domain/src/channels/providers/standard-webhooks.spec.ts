import {
  standardWebhookHeaders,
  standardWebhookSignature,
  verifyStandardWebhook,
} from './standard-webhooks';

// The test vector every Standard Webhooks library reproduces (standard-webhooks/standard-webhooks).
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const TS = 1614265330;
const BODY = '{"test": 2432232314}';
const SIGNATURE = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';

describe('Standard Webhooks', () => {
  const headers = (signature = SIGNATURE, ts = String(TS)) => ({
    'webhook-id': ID,
    'webhook-timestamp': ts,
    'webhook-signature': signature,
  });

  it('reproduces the published test vector, with or without the whsec_ prefix', () => {
    expect(standardWebhookSignature(SECRET, ID, TS, BODY)).toBe(SIGNATURE);
    expect(standardWebhookSignature(SECRET.slice(6), ID, TS, Buffer.from(BODY))).toBe(SIGNATURE);
  });

  it('verifies the vector at its time, and one of several space-separated signatures', () => {
    expect(verifyStandardWebhook(SECRET, headers(), BODY, { nowSeconds: TS })).toBe(true);
    expect(
      verifyStandardWebhook(SECRET, headers(`v1,bm9wZQ== ${SIGNATURE}`), BODY, { nowSeconds: TS }),
    ).toBe(true);
  });

  it('refuses a changed body, another secret, a missing header or an unknown version', () => {
    const at = { nowSeconds: TS };
    expect(verifyStandardWebhook(SECRET, headers(), BODY + ' ', at)).toBe(false);
    expect(
      verifyStandardWebhook(`whsec_${Buffer.alloc(24, 1).toString('base64')}`, headers(), BODY, at),
    ).toBe(false);
    expect(verifyStandardWebhook(SECRET, { ...headers(), 'webhook-id': undefined }, BODY, at)).toBe(
      false,
    );
    expect(verifyStandardWebhook(SECRET, headers(SIGNATURE.replace('v1,', 'v2,')), BODY, at)).toBe(
      false,
    );
    expect(verifyStandardWebhook(SECRET, headers(SIGNATURE, 'soon'), BODY, at)).toBe(false);
  });

  it('refuses a timestamp more than 5 minutes from now, either way', () => {
    expect(verifyStandardWebhook(SECRET, headers(), BODY, { nowSeconds: TS + 300 })).toBe(true);
    expect(verifyStandardWebhook(SECRET, headers(), BODY, { nowSeconds: TS + 301 })).toBe(false);
    expect(verifyStandardWebhook(SECRET, headers(), BODY, { nowSeconds: TS - 301 })).toBe(false);
  });

  it('signs with a fresh id and the current time', () => {
    const h = standardWebhookHeaders(SECRET, BODY);
    expect(h['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(verifyStandardWebhook(SECRET, h, BODY)).toBe(true);
  });
});
