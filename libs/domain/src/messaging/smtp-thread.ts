// The SMTP side of delivery, run in a worker thread (smtp-thread-client.ts starts it): nodemailer's
// pooled transports, one per outbound host, building each message's MIME and talking SMTP. On the
// worker's main event loop every SMTP reply waited behind the delivery bookkeeping (Bull, Redis,
// PostgreSQL, decryption, GC), so each pooled connection turned over more slowly than nodemailer's
// alone (docs/sending.md, worker round 3). This file imports only nodemailer and node: it is also
// loaded from its TypeScript source, transpiled alone, when the app runs without a build (tests).
import nodemailer from 'nodemailer';
import type { SendMailOptions } from 'nodemailer';
import { parentPort, workerData } from 'node:worker_threads';

export const SMTP_TIMEOUTS = {
  connectionTimeout: 30_000,
  greetingTimeout: 30_000,
  socketTimeout: 120_000,
};

/** Pools kept at most (the oldest is closed first): MX delivery opens one per host. */
const MAX_POOLS = 200;

/** What every pool of the thread shares; given once, when the thread starts. */
export interface SmtpThreadConfig {
  poolSize: number;
  localAddress?: string;
  /** Smarthost credentials, for the smarthost's pool only. */
  auth?: { user: string; pass: string };
  /** MX delivery: STARTTLS when offered, without insisting on a valid certificate. */
  opportunisticTls: boolean;
}

export interface SmtpTarget {
  host: string;
  /** The server's name when `host` is its address: TLS SNI (an MX host, resolved and checked). */
  servername?: string;
  port: number;
  secure: boolean;
  /** The smarthost's pool (gets the configured credentials). */
  smarthost: boolean;
}

export type SmtpThreadRequest =
  | {
      type: 'send';
      id: number;
      target: SmtpTarget;
      mail: SendMailOptions;
      envelope: { from: string; to: string[] };
    }
  | { type: 'close' };

export interface SmtpRejection {
  recipient?: string;
  response?: string;
  responseCode?: number;
}

/** What nodemailer answered, as plain data (an Error's own properties do not survive postMessage). */
export interface SmtpOutcome {
  info?: { response?: string; rejectedErrors?: SmtpRejection[] };
  err?: {
    code?: string;
    message: string;
    response?: string;
    responseCode?: number;
    rejectedErrors?: SmtpRejection[];
  };
}

export type SmtpThreadReply = { id: number } & SmtpOutcome;

type Pool = ReturnType<typeof nodemailer.createTransport>;

function rejections(list: unknown): SmtpRejection[] | undefined {
  if (!Array.isArray(list)) return undefined;
  return list.map((r: SmtpRejection) => ({
    recipient: r.recipient,
    response: r.response,
    responseCode: r.responseCode,
  }));
}

/** The thread's side: the pools and the message loop. */
export function runSmtpThread(config: SmtpThreadConfig, port: NonNullable<typeof parentPort>) {
  const pools = new Map<string, Pool>();
  let closed = false;

  const poolFor = (t: SmtpTarget): Pool => {
    const key = `${t.host}:${t.port}:${t.servername ?? ''}`;
    let pool = pools.get(key);
    if (!pool) {
      if (pools.size >= MAX_POOLS) {
        const [oldestKey, oldest] = pools.entries().next().value as [string, Pool];
        oldest.close();
        pools.delete(oldestKey);
      }
      pool = nodemailer.createTransport({
        pool: true,
        host: t.host,
        servername: t.servername,
        port: t.port,
        secure: t.secure,
        auth: t.smarthost ? config.auth : undefined,
        maxConnections: config.poolSize,
        maxMessages: 1000,
        localAddress: config.localAddress,
        // Messages are built from stored content only: never read a file or URL named in a payload.
        disableFileAccess: true,
        disableUrlAccess: true,
        // MX hosts rarely have a certificate for their name; a smarthost is verified.
        tls: config.opportunisticTls ? { rejectUnauthorized: false } : undefined,
        ...SMTP_TIMEOUTS,
      });
      pools.set(key, pool);
    }
    return pool;
  };

  const send = async (req: Extract<SmtpThreadRequest, { type: 'send' }>): Promise<SmtpOutcome> => {
    if (closed) return { err: { code: 'ESHUTDOWN', message: 'the worker is shutting down' } };
    const mail = req.mail;
    // A Buffer arrives as a plain Uint8Array, which nodemailer would not take as content.
    const raw: unknown = mail.raw;
    if (raw instanceof Uint8Array && !Buffer.isBuffer(raw)) {
      mail.raw = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    }
    try {
      const info = (await poolFor(req.target).sendMail({ ...mail, envelope: req.envelope })) as {
        response?: string;
        rejectedErrors?: unknown;
      };
      return { info: { response: info.response, rejectedErrors: rejections(info.rejectedErrors) } };
    } catch (e) {
      const err = e as NonNullable<SmtpOutcome['err']> & { rejectedErrors?: unknown };
      return {
        err: {
          code: typeof err.code === 'string' ? err.code : undefined,
          message: String(err.message),
          response: err.response,
          responseCode: err.responseCode,
          rejectedErrors: rejections(err.rejectedErrors),
        },
      };
    }
  };

  port.on('message', (req: SmtpThreadRequest) => {
    if (req.type === 'close') {
      // Idle connections close now, busy ones after their message; queued messages fail (and are
      // deferred by the caller). Every answer is still posted; the thread ends once its last
      // connection has closed (the port no longer keeps it alive).
      closed = true;
      for (const pool of pools.values()) pool.close();
      pools.clear();
      port.unref();
      return;
    }
    void send(req).then((outcome) => port.postMessage({ id: req.id, ...outcome }));
  });
}

if (parentPort && (workerData as { smtpThread?: SmtpThreadConfig } | null)?.smtpThread) {
  runSmtpThread((workerData as { smtpThread: SmtpThreadConfig }).smtpThread, parentPort);
}
