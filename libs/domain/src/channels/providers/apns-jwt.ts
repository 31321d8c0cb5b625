// APNs provider tokens ("Establishing a token-based connection to APNs"): a JWT with header
// {alg: ES256, kid} and claims {iss: team id, iat}, signed with the team's .p8 key (ECDSA P-256,
// SHA-256), through the one JWT signer (jwt.ts).
import { createPrivateKey, KeyObject } from 'node:crypto';
import { signJwt } from './jwt';

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

/** A provider token issued at `issuedAt` (seconds since the epoch). */
export function signApnsProviderToken(key: ApnsSigningKey, issuedAt: number): string {
  const privateKey = typeof key.privateKey === 'string' ? parseKey(key.privateKey) : key.privateKey;
  return signJwt({ kid: key.keyId }, { iss: key.teamId, iat: issuedAt }, privateKey, 'ES256');
}
