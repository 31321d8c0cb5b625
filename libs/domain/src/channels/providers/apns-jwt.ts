// APNs provider tokens ("Establishing a token-based connection to APNs"): a JWT with header
// {alg: ES256, kid} and claims {iss: team id, iat}, signed with the team's .p8 key (ECDSA P-256,
// SHA-256). JOSE wants the signature as r‖s, not DER: hence `ieee-p1363`.
import { createPrivateKey, KeyObject, sign } from 'node:crypto';

export interface ApnsSigningKey {
  keyId: string;
  teamId: string;
  /** The .p8 file's PEM (PKCS #8), or its parsed key. */
  privateKey: string | KeyObject;
}

/** The .p8 is not a P-256 private key in PEM: a credentials problem, not a send failure. */
export class ApnsKeyError extends Error {}

function parseKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new ApnsKeyError('The APNs privateKey is not a PEM private key');
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new ApnsKeyError('The APNs privateKey is not a P-256 (ES256) key');
  }
  return key;
}

function segment(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** A provider token issued at `issuedAt` (seconds since the epoch). */
export function signApnsProviderToken(key: ApnsSigningKey, issuedAt: number): string {
  const privateKey = typeof key.privateKey === 'string' ? parseKey(key.privateKey) : key.privateKey;
  const input = `${segment({ alg: 'ES256', kid: key.keyId })}.${segment({ iss: key.teamId, iat: issuedAt })}`;
  const signature = sign('sha256', Buffer.from(input), {
    key: privateKey,
    dsaEncoding: 'ieee-p1363',
  });
  return `${input}.${signature.toString('base64url')}`;
}
