// STORAGE_URL (§18): where stored files live, a folder of this machine or an S3 bucket.
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export type StorageConfig =
  | { kind: 'file'; root: string }
  | {
      kind: 's3';
      bucket: string;
      /** Prepended to every key: empty, or ending in `/`. */
      prefix: string;
      /** An S3-compatible service's URL; unset: AWS's own endpoint for the region. */
      endpoint: string | undefined;
      region: string;
      forcePathStyle: boolean;
    };

const S3_PARAMS = ['endpoint', 'region', 'forcePathStyle'];
// S3's bucket naming rules (3–63 characters, lower case, digits, dots and hyphens).
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** The default: `file://<DATA_DIR>/files`. */
export function defaultStorageUrl(dataDir: string): string {
  return `file://${resolve(dataDir, 'files')}`;
}

/**
 * `file:///absolute/folder` or `s3://<bucket>/<prefix>?endpoint=…&region=…&forcePathStyle=true`.
 * Throws an Error whose message says what is wrong (the caller names the variable). Credentials
 * never appear here: the AWS SDK takes them from its default provider chain.
 */
export function parseStorageUrl(raw: string): StorageConfig {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error('must be a file:// or s3:// URL');
  }
  if (url.protocol === 'file:') {
    let root: string;
    try {
      root = fileURLToPath(url);
    } catch (err) {
      throw new Error(`must name a folder of this machine: ${(err as Error).message}`);
    }
    if (url.search || url.hash || !isAbsolute(root))
      throw new Error('must be file:// followed by an absolute path and nothing else');
    return { kind: 'file', root: resolve(root) };
  }
  if (url.protocol !== 's3:') throw new Error('must use file:// or s3://');
  if (url.username || url.password)
    throw new Error('must not carry credentials (use AWS_ACCESS_KEY_ID and its kin)');
  if (url.port) throw new Error('must name the endpoint in ?endpoint=, not as a port');
  const bucket = url.hostname;
  if (!BUCKET.test(bucket)) throw new Error(`names an invalid bucket "${bucket}"`);
  const parts = decodeURIComponent(url.pathname).split('/').filter(Boolean);
  if (parts.some((p) => p === '.' || p === '..'))
    throw new Error('must not hold "." or ".." in its prefix');
  for (const name of url.searchParams.keys()) {
    if (!S3_PARAMS.includes(name))
      throw new Error(`has an unknown parameter "${name}" (known: ${S3_PARAMS.join(', ')})`);
  }
  const endpoint = url.searchParams.get('endpoint') || undefined;
  if (endpoint) {
    let e: URL;
    try {
      e = new URL(endpoint);
    } catch {
      throw new Error('has an endpoint that is not a URL');
    }
    if (e.protocol !== 'http:' && e.protocol !== 'https:')
      throw new Error('has an endpoint that is not http:// or https://');
  }
  const style = url.searchParams.get('forcePathStyle');
  if (style !== null && style !== 'true' && style !== 'false')
    throw new Error('has forcePathStyle other than true or false');
  const region = url.searchParams.get('region') || 'us-east-1';
  if (!/^[a-z0-9-]+$/.test(region)) throw new Error(`names an invalid region "${region}"`);
  return {
    kind: 's3',
    bucket,
    prefix: parts.length ? `${parts.join('/')}/` : '',
    endpoint,
    region,
    forcePathStyle: style === 'true',
  };
}
