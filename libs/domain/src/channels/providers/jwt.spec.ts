// signJwt: compact JWS that a verifier of the algorithm accepts.
import { generateKeyPairSync, verify } from 'node:crypto';
import { signJwt } from './jwt';

describe('signJwt', () => {
  const parts = (jwt: string) => jwt.split('.').map((p) => Buffer.from(p, 'base64url'));

  it('signs RS256 over header.payload with the header it was given', () => {
    // The size plays no part in the signature's form; a small key is quick to make.
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const jwt = signJwt({ typ: 'JWT', kid: 'k1' }, { iss: 'me', iat: 1 }, pem, 'RS256');
    const [header, payload, signature] = parts(jwt);
    expect(JSON.parse(header.toString())).toEqual({ typ: 'JWT', kid: 'k1', alg: 'RS256' });
    expect(JSON.parse(payload.toString())).toEqual({ iss: 'me', iat: 1 });
    const input = Buffer.from(jwt.slice(0, jwt.lastIndexOf('.')));
    expect(verify('sha256', input, publicKey, signature)).toBe(true);
  });

  it('signs ES256 as the raw 64-byte r||s pair JWS wants, not DER', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwt = signJwt({ kid: 'ABC123DEFG' }, { iss: 'TEAM', iat: 1 }, privateKey, 'ES256');
    const signature = parts(jwt)[2];
    expect(signature).toHaveLength(64);
    const input = Buffer.from(jwt.slice(0, jwt.lastIndexOf('.')));
    expect(verify('sha256', input, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature)).toBe(
      true,
    );
  });

  it('refuses a key that is not a PEM private key without quoting it', () => {
    expect(() => signJwt({}, {}, 'secret-not-a-key', 'RS256')).toThrow(
      'The RS256 signing key is not a valid PEM private key',
    );
  });
});
