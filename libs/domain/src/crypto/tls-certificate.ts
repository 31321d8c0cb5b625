// TLS material for the SMTP relay's STARTTLS (§2): the configured pair, or in development a
// self-signed pair generated once into DATA_DIR (smtp-server's built-in certificate has expired).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

export async function relayTlsMaterial(config: AppConfig): Promise<TlsMaterial | null> {
  if (config.smtpTlsCert && config.smtpTlsKey) {
    return { cert: pem(config.smtpTlsCert), key: pem(config.smtpTlsKey), selfSigned: false };
  }
  if (config.isProduction) return null;
  const dir = join(config.dataDir, 'smtp-tls');
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  if (existsSync(certFile) && existsSync(keyFile)) {
    return {
      cert: readFileSync(certFile, 'utf8'),
      key: readFileSync(keyFile, 'utf8'),
      selfSigned: true,
    };
  }
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
  mkdirSync(dir, { recursive: true });
  writeFileSync(certFile, pems.cert);
  writeFileSync(keyFile, pems.private, { mode: 0o600 });
  return { cert: pems.cert, key: pems.private, selfSigned: true };
}
