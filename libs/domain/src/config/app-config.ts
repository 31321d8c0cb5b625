// Owns the process configuration: every environment variable is read and validated here, once (§2).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { dirname, resolve } from 'node:path';
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

export interface AppConfig {
  nodeEnv: string;
  isProduction: boolean;
  port: number;
  /** API processes sharing the port (node:cluster); 1 runs the api in this process. */
  apiProcesses: number;
  workerHealthPort: number;
  smtpPort: number;
  /** Port of the relay's inbound listener for bounces, complaints and mailto unsubscribes (§14). */
  inboundSmtpPort: number;
  /** How often the worker looks for inbound mail not processed yet (lost jobs, retries). */
  inboundPollIntervalMs: number;
  /** Bounds of the inbound port (§16): no login, so every client is a stranger. */
  inbound: {
    /** Bytes of one message kept (INBOUND_MAX_BYTES); the rest of DATA is discarded. */
    maxBytes: number;
    /** Connections one client address may hold open at once. */
    connectionsPerIp: number;
    /** Messages (DATA) one client address may deliver per minute. */
    messagesPerIpPerMinute: number;
  };
  /**
   * HTTP server timeouts (§16): keep-alive above a load balancer's idle timeout (60 s is common),
   * headers a little above that, as Node requires.
   */
  http: {
    keepAliveTimeoutMs: number;
    headersTimeoutMs: number;
  };
  /** Unset means: start (or reuse) the embedded PostgreSQL. */
  databaseUrl: string | undefined;
  engagementDatabaseUrl: string | undefined;
  /** Replica for the reads that tolerate lag (DATABASE_READ_URL); unset: they read the primary. */
  databaseReadUrl: string | undefined;
  embeddedPgPort: number;
  dataDir: string;
  /** Where import files live (STORAGE_URL, §18): a folder or an S3 bucket. */
  storage: StorageConfig;
  /** The dashboard's static build, served by the api at /dashboard (§15). */
  dashboardDir: string;
  /** One server (`redis:`, `rediss:`), a cluster's seed nodes (`redis+cluster:`, `rediss+cluster:`) or a Sentinel group (`redis+sentinel:`, `rediss+sentinel:`). */
  redisUrl: string;
  encryptionKey: Buffer;
  encryptionKeysOld: Buffer[];
  publicBaseUrl: string;
  smtpOutboundUrl: string | undefined;
  webhookAllowPrivateTargets: boolean;
  /** Base of the webhook retry backoff: attempt n waits base × 2^(n−1) (§10: 5 s). */
  webhookRetryBaseMs: number;
  /** How often each worker claims due webhook retries (§10: 5 s). */
  webhookScanIntervalMs: number;
  /** Webhook attempts one worker process runs at the same time. */
  webhookConcurrency: number;
  /** Webhook attempts one worker process runs at the same time to one endpoint (§16). */
  webhookEndpointConcurrency: number;
  /** Deliver to MX hosts whose addresses are loopback/private/link-local (§16; tests). */
  deliveryAllowPrivateMx: boolean;
  /** DNS servers (`ip` or `ip:port`, `[ipv6]:port`) every lookup goes to; empty: the system's. */
  dnsServers: string[];
  smtpTlsCert: string | undefined;
  smtpTlsKey: string | undefined;
  smtpAllowInsecureAuth: boolean;
  /**
   * Extra trusted certificate authority for provider APIs (PROVIDER_TLS_CA, PEM text or a file
   * path): a provider behind a private CA, or the loopback fakes of the tests.
   */
  providerTlsCa: string | undefined;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  runMigrations: boolean;
  dbPoolSize: number;
  /**
   * How long a worker's hold on a queue job lasts without renewal: a job of a worker that died is
   * handed to another within about twice this.
   */
  jobLockMs: number;
  bullPrefix: string;
  /** Trust X-Forwarded-For from one proxy hop when computing the client IP. */
  trustProxy: boolean;
  /** Client IPs or CIDRs exempt from the per-IP request limits of the send API (benchmarks). */
  sendIpAllowlist: string[];
  /** First retry delay of a deferred recipient; it doubles per attempt (§8: 1 min). */
  deliveryRetryBaseMs: number;
  /** A recipient still deferred this long after its first attempt is failed (§8: 24 h). */
  deliveryRetryMaxAgeMs: number;
  /** Messages one worker delivers at the same time. */
  deliveryConcurrency: number;
  /** Pooled SMTP connections per outbound host. */
  smtpOutboundPoolSize: number;
  /** Local address outbound SMTP binds to; also what attempts report as outboundIp. */
  smtpOutboundIp: string | undefined;
  /**
   * How long a worker holds a message it is delivering; a worker that dies holding one lets it go
   * to another worker after this long.
   */
  deliveryLeaseMs: number;
  /** How often the worker looks for committed messages whose queue job is gone. */
  emailSweepIntervalMs: number;
  /** How long a due message may wait before the sweeper checks its job. */
  emailSweepGraceMs: number;
  /** How often the worker runs the message retention purge (§8: daily). */
  messageRetentionIntervalMs: number;
  /** How often the worker looks for due campaign recipients (held ones, lost kicks). */
  campaignPollIntervalMs: number;
  /** Sending domains (§13): sender policy, the platform's bounce host, SPF include, checks. */
  sendingDomains: {
    /** `require`: a From outside the organization's verified domains is refused; `allow`: sent unsigned. */
    policy: 'require' | 'allow';
    /**
     * Return host of envelope senders, the CNAME target of each domain's `bounces.` name, and the
     * host of the bounce, unsubscribe and feedback-loop addresses (§14) that INBOUND_SMTP_PORT takes.
     */
    bounceDomain: string;
    /** The name each domain's SPF record includes. */
    spfInclude: string;
    /** How often the worker looks for domains due a DNS check. */
    checkIntervalMs: number;
  };
  /**
   * Contact imports (§7): rows per committed batch, worker lease and sweeper period, and the
   * bytes of import files an organization may hold (§16, IMPORT_STORAGE_QUOTA_MB).
   */
  imports: {
    batchSize: number;
    leaseSeconds: number;
    sweepSeconds: number;
    storageQuotaBytes: number;
  };
}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min = 0, max = 65535): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max)
    throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

function url(env: Env, name: string, protocols: string[], fallback?: string): string | undefined {
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

function redisUrl(env: Env): string {
  const raw = env.REDIS_URL || 'redis://127.0.0.1:6379';
  try {
    parseRedisUrl(raw);
  } catch (e) {
    throw new ConfigError('REDIS_URL', (e as Error).message);
  }
  return raw;
}

/** Comma list of IP addresses or CIDR ranges (`10.0.0.0/8`, `::1`). */
function ipList(env: Env, name: string): string[] {
  const items = (env[name] || '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
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
function serverList(env: Env, name: string): string[] {
  const items = (env[name] || '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
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
function hostname(env: Env, name: string, fallback: string, underscores = false): string {
  const raw = (env[name] || fallback).trim().toLowerCase().replace(/\.$/, '');
  const label = underscores ? /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/ : /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
  if (raw.length > 253 || !raw.split('.').every((l) => label.test(l))) {
    throw new ConfigError(name, `must be a host name, got "${raw}"`);
  }
  return raw;
}

function singleIp(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  if (!isIP(raw)) throw new ConfigError(name, `must be an IP address, got "${raw}"`);
  return raw;
}

function key(name: string, raw: string): Buffer {
  const buf = Buffer.from(raw.trim(), 'base64');
  if (buf.length !== 32) throw new ConfigError(name, 'must be base64 of exactly 32 bytes');
  return buf;
}

function storage(env: Env, dataDir: string): StorageConfig {
  try {
    return parseStorageUrl(env.STORAGE_URL || defaultStorageUrl(dataDir));
  } catch (err) {
    throw new ConfigError('STORAGE_URL', (err as Error).message);
  }
}

function loadEncryptionKey(env: Env, isProduction: boolean, dataDir: string): Buffer {
  const raw = env.ENCRYPTION_KEY;
  if (raw) return key('ENCRYPTION_KEY', raw);
  if (isProduction) throw new ConfigError('ENCRYPTION_KEY', 'is required when NODE_ENV=production');
  const file = resolve(dataDir, 'encryption.key');
  if (existsSync(file)) return key('ENCRYPTION_KEY', readFileSync(file, 'utf8'));
  mkdirSync(dirname(file), { recursive: true });
  const generated = randomBytes(32).toString('base64');
  writeFileSync(file, generated + '\n', { mode: 0o600 });
  process.emitWarning(
    `ENCRYPTION_KEY is unset: generated a development key into ${file}. Set ENCRYPTION_KEY in production.`,
  );
  return Buffer.from(generated, 'base64');
}

export function loadConfig(env: Env = process.env): AppConfig {
  const nodeEnv = env.NODE_ENV || 'development';
  const isProduction = nodeEnv === 'production';
  const dataDir = resolve(env.DATA_DIR || './.data');
  const logLevel = (env.LOG_LEVEL || 'info') as AppConfig['logLevel'];
  if (!['debug', 'info', 'warn', 'error'].includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', 'must be one of debug, info, warn, error');
  }
  // By default the api's own address on this machine (its PORT).
  const localPort = /^\d{1,5}$/.test(env.PORT ?? '') ? env.PORT : '3000';
  const publicBaseUrl = url(
    env,
    'PUBLIC_BASE_URL',
    ['http:', 'https:'],
    `http://localhost:${localPort}`,
  )!;
  // By default `bounces.` + the public host (an IP literal such as `[::1]` is no mail domain:
  // `bounces.localhost` then).
  const publicHost = new URL(publicBaseUrl).hostname;
  const bounceDomain = hostname(
    env,
    'BOUNCE_DOMAIN',
    `bounces.${/^[a-z0-9.-]+$/i.test(publicHost) ? publicHost : 'localhost'}`,
  );
  const policy = env.SENDING_DOMAIN_POLICY || (isProduction ? 'require' : 'allow');
  if (policy !== 'require' && policy !== 'allow') {
    throw new ConfigError('SENDING_DOMAIN_POLICY', `must be require or allow, got "${policy}"`);
  }
  const smtpTlsCert = env.SMTP_TLS_CERT || undefined;
  const smtpTlsKey = env.SMTP_TLS_KEY || undefined;
  if (Boolean(smtpTlsCert) !== Boolean(smtpTlsKey)) {
    throw new ConfigError(
      smtpTlsCert ? 'SMTP_TLS_KEY' : 'SMTP_TLS_CERT',
      'must be set together with its pair',
    );
  }
  return {
    nodeEnv,
    isProduction,
    port: int(env, 'PORT', 3000, 0),
    apiProcesses: int(env, 'API_PROCESSES', 1, 1, 64),
    workerHealthPort: int(env, 'WORKER_HEALTH_PORT', 3001, 0),
    smtpPort: int(env, 'SMTP_PORT', 2525, 0),
    inboundSmtpPort: int(env, 'INBOUND_SMTP_PORT', 2526, 0),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    engagementDatabaseUrl: url(env, 'ENGAGEMENT_DATABASE_URL', ['postgres:', 'postgresql:']),
    databaseReadUrl: url(env, 'DATABASE_READ_URL', ['postgres:', 'postgresql:']),
    embeddedPgPort: int(env, 'EMBEDDED_PG_PORT', 54329, 1),
    dataDir,
    storage: storage(env, dataDir),
    dashboardDir: resolve(env.DASHBOARD_DIR || './dist/dashboard'),
    redisUrl: redisUrl(env),
    encryptionKey: loadEncryptionKey(env, isProduction, dataDir),
    encryptionKeysOld: (env.ENCRYPTION_KEYS_OLD || '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((k) => key('ENCRYPTION_KEYS_OLD', k)),
    publicBaseUrl: publicBaseUrl.replace(/\/$/, ''),
    smtpOutboundUrl: url(env, 'SMTP_OUTBOUND_URL', ['smtp:', 'smtps:']),
    inboundPollIntervalMs: int(env, 'INBOUND_POLL_INTERVAL_MS', 10_000, 50, 86_400_000),
    inbound: {
      maxBytes: int(env, 'INBOUND_MAX_BYTES', 2 * 1024 * 1024, 1024, 50 * 1024 * 1024),
      connectionsPerIp: int(env, 'INBOUND_CONNECTIONS_PER_IP', 5, 1, 10_000),
      messagesPerIpPerMinute: int(env, 'INBOUND_MESSAGES_PER_IP_PER_MINUTE', 60, 1, 1_000_000),
    },
    http: httpTimeouts(env),
    webhookAllowPrivateTargets: bool(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', false),
    webhookRetryBaseMs: int(env, 'WEBHOOK_RETRY_BASE_MS', 5000, 1, 3_600_000),
    webhookScanIntervalMs: int(env, 'WEBHOOK_SCAN_INTERVAL_MS', 5000, 10, 3_600_000),
    webhookConcurrency: int(env, 'WEBHOOK_CONCURRENCY', 50, 1, 1000),
    webhookEndpointConcurrency: int(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 10, 1, 1000),
    deliveryAllowPrivateMx: bool(env, 'DELIVERY_ALLOW_PRIVATE_MX', false),
    dnsServers: serverList(env, 'DNS_SERVERS'),
    smtpTlsCert,
    smtpTlsKey,
    smtpAllowInsecureAuth: bool(env, 'SMTP_ALLOW_INSECURE_AUTH', false),
    providerTlsCa: env.PROVIDER_TLS_CA || undefined,
    logLevel,
    runMigrations: bool(env, 'RUN_MIGRATIONS', !isProduction),
    dbPoolSize: int(env, 'DB_POOL_SIZE', 20, 1, 1000),
    bullPrefix: env.BULL_PREFIX || 'mp',
    jobLockMs: int(env, 'JOB_LOCK_MS', 30_000, 1000, 600_000),
    trustProxy: bool(env, 'TRUST_PROXY', false),
    sendIpAllowlist: ipList(env, 'SEND_IP_ALLOWLIST'),
    deliveryRetryBaseMs: int(env, 'DELIVERY_RETRY_BASE_MS', 60_000, 1, 86_400_000),
    deliveryRetryMaxAgeMs: int(env, 'DELIVERY_RETRY_MAX_AGE_MS', 86_400_000, 1, 2_592_000_000),
    deliveryConcurrency: int(env, 'DELIVERY_CONCURRENCY', 50, 1, 1000),
    smtpOutboundPoolSize: int(env, 'SMTP_OUTBOUND_POOL_SIZE', 5, 1, 100),
    smtpOutboundIp: singleIp(env, 'SMTP_OUTBOUND_IP'),
    deliveryLeaseMs: int(env, 'DELIVERY_LEASE_MS', 300_000, 1000, 3_600_000),
    emailSweepIntervalMs: int(env, 'EMAIL_SWEEP_INTERVAL_MS', 30_000, 100, 86_400_000),
    emailSweepGraceMs: int(env, 'EMAIL_SWEEP_GRACE_MS', 60_000, 0, 86_400_000),
    messageRetentionIntervalMs: int(
      env,
      'MESSAGE_RETENTION_INTERVAL_MS',
      86_400_000,
      1000,
      2_592_000_000,
    ),
    campaignPollIntervalMs: int(env, 'CAMPAIGN_POLL_INTERVAL_MS', 10_000, 50, 86_400_000),
    sendingDomains: {
      policy,
      bounceDomain,
      spfInclude: hostname(env, 'SPF_INCLUDE', bounceDomain, true),
      checkIntervalMs: int(env, 'DOMAIN_CHECK_INTERVAL_MS', 60_000, 100, 86_400_000),
    },
    imports: {
      batchSize: int(env, 'IMPORT_BATCH_SIZE', 2000, 1, 50_000),
      leaseSeconds: int(env, 'IMPORT_LEASE_SECONDS', 30, 1, 3600),
      sweepSeconds: int(env, 'IMPORT_SWEEP_SECONDS', 10, 1, 3600),
      storageQuotaBytes: int(env, 'IMPORT_STORAGE_QUOTA_MB', 1024, 1, 1_048_576) * 1024 * 1024,
    },
  };
}

function httpTimeouts(env: Env): AppConfig['http'] {
  const keepAliveTimeoutMs = int(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 65_000, 1000, 3_600_000);
  const headersTimeoutMs = int(
    env,
    'HTTP_HEADERS_TIMEOUT_MS',
    keepAliveTimeoutMs + 1000,
    1000,
    3_600_000,
  );
  if (headersTimeoutMs <= keepAliveTimeoutMs) {
    throw new ConfigError('HTTP_HEADERS_TIMEOUT_MS', 'must be above HTTP_KEEP_ALIVE_TIMEOUT_MS');
  }
  return { keepAliveTimeoutMs, headersTimeoutMs };
}

/** Validates the configuration before Nest boots; a bad value ends the process with one line. */
export function loadConfigOrExit(env: Env = process.env): AppConfig {
  try {
    return loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(err.message + '\n');
      process.exit(1);
    }
    throw err;
  }
}
