// Compact JWS signing for provider credentials (§17): FCM's OAuth2 assertion (RS256) and APNs'
// provider token (ES256). Node's crypto signs both; only the encoding is ours.
import { createPrivateKey, KeyObject, sign } from 'node:crypto';

export type JwtAlgorithm = 'RS256' | 'ES256';

const base64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

/**
 * A signed JWT: `header` as given plus `alg`, `claims` the payload as given, `key` a PEM private
 * key or a KeyObject. ES256 signatures are the raw r||s pair (JWS),
 * not DER. A malformed key throws without quoting it.
 */
export function signJwt(
  header: Record<string, unknown>,
  claims: Record<string, unknown>,
  key: string | KeyObject,
  alg: JwtAlgorithm,
): string {
  let privateKey: KeyObject;
  try {
    privateKey = typeof key === 'string' ? createPrivateKey(key) : key;
  } catch {
    throw new Error(`The ${alg} signing key is not a valid PEM private key`);
  }
  const signingInput = `${base64url(JSON.stringify({ ...header, alg }))}.${base64url(JSON.stringify(claims))}`;
  const signature =
    alg === 'RS256'
      ? sign('sha256', Buffer.from(signingInput), privateKey)
      : sign('sha256', Buffer.from(signingInput), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return `${signingInput}.${base64url(signature)}`;
}
