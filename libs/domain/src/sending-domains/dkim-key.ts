// DKIM keys (§13): one 2048-bit RSA pair per sending domain, made at creation, with a selector of
// its own so that a new key can later be published next to the old one.
import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const generate = promisify(generateKeyPair);

export const DKIM_KEY_BITS = 2048;

export interface DkimKeyPair {
  selector: string;
  /** Base64 SubjectPublicKeyInfo (DER): the `p=` tag of the DKIM record. */
  publicKey: string;
  /** PKCS#8 PEM. */
  privateKey: string;
}

/** `mp` and ten hex digits: a DNS label unique enough that two keys of one name never share it. */
export function newSelector(): string {
  return `mp${randomBytes(5).toString('hex')}`;
}

/** A new key pair (generated off the event loop) with a fresh selector. */
export async function generateDkimKey(): Promise<DkimKeyPair> {
  const { publicKey, privateKey } = await generate('rsa', {
    modulusLength: DKIM_KEY_BITS,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return {
    selector: newSelector(),
    publicKey: publicKey.toString('base64'),
    privateKey,
  };
}
