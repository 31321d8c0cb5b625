// Owns the process configuration: every environment variable is read and validated here, once (§2).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import type { StorageConfig } from '../storage/storage-url';
import {
  bool,
  commaList,
  ConfigError,
  Env,
  hostname,
  int,
  ipList,
  key,
  redisUrl,
  serverList,
  singleIp,
  storage,
  url,
} from './env-values';

export { ConfigError };

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
    encryptionKeysOld: commaList(env, 'ENCRYPTION_KEYS_OLD').map((k) =>
      key('ENCRYPTION_KEYS_OLD', k),
    ),
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
