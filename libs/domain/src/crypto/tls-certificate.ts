// TLS material for the SMTP relay's STARTTLS (§2): the configured pair, or else a self-signed pair
// generated once into DATA_DIR and kept there (smtp-server's built-in certificate has expired).
// The relay warns in production when it runs on the self-signed pair.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import type { AppConfig } from '../config/app-config';

export interface TlsMaterial {
  key: string;
  cert: string;
  selfSigned: boolean;
}

/** A PEM given inline, or a path to a PEM file. */
function pem(value: string): string {
  return value.trimStart().startsWith('-----BEGIN') ? value : readFileSync(value, 'utf8');
}

export async function relayTlsMaterial(config: AppConfig): Promise<TlsMaterial> {
  if (config.smtpTlsCert && config.smtpTlsKey) {
    return { cert: pem(config.smtpTlsCert), key: pem(config.smtpTlsKey), selfSigned: false };
  }
  const dir = join(config.dataDir, 'smtp-tls');
  const kept = readPair(dir);
  if (kept && !expired(kept.cert)) return kept;
  if (kept) retire(dir);
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 365 * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  // Written whole into a folder of its own, then renamed into place: relays starting together on
  // one data volume all end up with the pair of whichever rename came first.
  const staging = `${dir}.${process.pid}.tmp`;
  mkdirSync(staging, { recursive: true, mode: 0o700 });
  writeFileSync(join(staging, 'cert.pem'), pems.cert);
  writeFileSync(join(staging, 'key.pem'), pems.private, { mode: 0o600 });
  try {
    renameSync(staging, dir);
  } catch {
    rmSync(staging, { recursive: true, force: true });
  }
  return readPair(dir) ?? { cert: pems.cert, key: pems.private, selfSigned: true };
}

function expired(cert: string): boolean {
  return new Date(new X509Certificate(cert).validTo).getTime() < Date.now() + 24 * 3600 * 1000;
}

/** Moves an expired pair out of the way (another relay may have done it already). */
function retire(dir: string): void {
  const old = `${dir}.${process.pid}.expired`;
  try {
    renameSync(dir, old);
  } catch {
    return;
  }
  rmSync(old, { recursive: true, force: true });
}

function readPair(dir: string): TlsMaterial | null {
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  if (!existsSync(certFile) || !existsSync(keyFile)) return null;
  return {
    cert: readFileSync(certFile, 'utf8'),
    key: readFileSync(keyFile, 'utf8'),
    selfSigned: true,
  };
}
