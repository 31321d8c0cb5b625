// How each kind of setting is read from the environment: a number in range, a flag, a URL of
// given schemes, lists of addresses, a key; a bad value is a ConfigError naming the variable.
import { isIP } from 'node:net';
import { parseRedisUrl } from '../redis/redis-client';
import { defaultStorageUrl, parseStorageUrl, StorageConfig } from '../storage/storage-url';

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`Invalid configuration: ${variable} ${detail}`);
  }
}

export type Env = Record<string, string | undefined>;

export function int(env: Env, name: string, fallback: number, min = 0, max = 65535): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max)
    throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

export function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

export function url(
  env: Env,
  name: string,
  protocols: string[],
  fallback?: string,
): string | undefined {
  const raw = env[name] || fallback;
  if (!raw) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be a valid URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use one of ${protocols.join(', ')}`);
  }
  return raw;
}

export function redisUrl(env: Env): string {
  const raw = env.REDIS_URL || 'redis://127.0.0.1:6379';
  try {
    parseRedisUrl(raw);
  } catch (e) {
    throw new ConfigError('REDIS_URL', (e as Error).message);
  }
  return raw;
}

/** A comma list's items, trimmed, empty ones dropped. */
export function commaList(env: Env, name: string): string[] {
  return (env[name] || '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Comma list of IP addresses or CIDR ranges (`10.0.0.0/8`, `::1`). */
export function ipList(env: Env, name: string): string[] {
  const items = commaList(env, name);
  for (const item of items) {
    const [addr, bits, extra] = item.split('/');
    const family = isIP(addr);
    const maxBits = family === 6 ? 128 : 32;
    const badBits = bits !== undefined && (!/^\d+$/.test(bits) || Number(bits) > maxBits);
    if (!family || badBits || extra !== undefined) {
      throw new ConfigError(
        name,
        `must be a comma list of IP addresses or CIDR ranges, got "${item}"`,
      );
    }
  }
  return items;
}

/** Comma list of `ip[:port]` (`[ipv6]:port` with a port), as dns.Resolver#setServers takes them. */
export function serverList(env: Env, name: string): string[] {
  const items = commaList(env, name);
  for (const item of items) {
    // `[v6]:port`, `v4:port`, or a bare address of either family.
    const m = /^\[([^\]]+)\]:(\d+)$/.exec(item) ?? /^([^:]+):(\d+)$/.exec(item);
    const [host, port] = m ? [m[1], Number(m[2])] : [item, 53];
    const family = isIP(host);
    const ok =
      family !== 0 && (!m || item.startsWith('[') === (family === 6)) && port >= 1 && port <= 65535;
    if (!ok) throw new ConfigError(name, `must be a comma list of ip[:port], got "${item}"`);
  }
  return items;
}

/**
 * A DNS name (lower-cased, without a trailing dot): `bounces.example.com`, `localhost`; with
 * `underscores`, also a record owner name such as `_spf.example.com`.
 */
export function hostname(env: Env, name: string, fallback: string, underscores = false): string {
  const raw = (env[name] || fallback).trim().toLowerCase().replace(/\.$/, '');
  const label = underscores ? /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/ : /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
  if (raw.length > 253 || !raw.split('.').every((l) => label.test(l))) {
    throw new ConfigError(name, `must be a host name, got "${raw}"`);
  }
  return raw;
}

export function singleIp(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  if (!isIP(raw)) throw new ConfigError(name, `must be an IP address, got "${raw}"`);
  return raw;
}

export function key(name: string, raw: string): Buffer {
  const buf = Buffer.from(raw.trim(), 'base64');
  if (buf.length !== 32) throw new ConfigError(name, 'must be base64 of exactly 32 bytes');
  return buf;
}

export function storage(env: Env, dataDir: string): StorageConfig {
  try {
    return parseStorageUrl(env.STORAGE_URL || defaultStorageUrl(dataDir));
  } catch (err) {
    throw new ConfigError('STORAGE_URL', (err as Error).message);
  }
}
