// The SMTP side of delivery, run in a worker thread (smtp-thread-client.ts starts it): nodemailer's
// pooled transports, one per outbound host, composing each message's MIME (a signed message comes
// built, from mail-build-thread.js) and talking SMTP.
// Plain JavaScript that needs no compilation, so the thread loads this very file whether the app
// runs built or from its sources; the message shapes are in smtp-thread.types.ts and
// common/request-thread.ts.
'use strict';
const nodemailer = require('nodemailer');
const { parentPort, workerData } = require('node:worker_threads');

/** Pools kept at most (the oldest is closed first): MX delivery opens one per host. */
const MAX_POOLS = 200;

/** Rejected recipients as plain data (an Error's own properties do not survive postMessage). */
function rejections(list) {
  if (!Array.isArray(list)) return undefined;
  return list.map((r) => ({
    recipient: r.recipient,
    response: r.response,
    responseCode: r.responseCode,
  }));
}

/** The pools of the thread, by target, and one send through them (an SmtpOutcome, never thrown). */
function smtpPools(config) {
  const pools = new Map();
  let closed = false;

  const poolFor = (t) => {
    const key = `${t.host}:${t.port}:${t.servername ?? ''}`;
    let pool = pools.get(key);
    if (!pool) {
      if (pools.size >= MAX_POOLS) {
        const [oldestKey, oldest] = pools.entries().next().value;
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
        ...config.timeouts,
      });
      pools.set(key, pool);
    }
    return pool;
  };

  const send = async (req) => {
    if (closed) return { err: { code: 'ESHUTDOWN', message: 'the worker is shutting down' } };
    const mail = req.mail;
    // A Buffer arrives as a plain Uint8Array, which nodemailer would not take as content.
    if (mail.raw instanceof Uint8Array && !Buffer.isBuffer(mail.raw)) {
      mail.raw = Buffer.from(mail.raw.buffer, mail.raw.byteOffset, mail.raw.byteLength);
    }
    try {
      const info = await poolFor(req.target).sendMail({ ...mail, envelope: req.envelope });
      return { info: { response: info.response, rejectedErrors: rejections(info.rejectedErrors) } };
    } catch (err) {
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

  // Idle connections close now, busy ones after their message; queued messages fail (and are
  // deferred by the caller).
  const close = () => {
    closed = true;
    for (const pool of pools.values()) pool.close();
    pools.clear();
  };

  return { send, close };
}

if (parentPort && workerData && workerData.smtpThread) {
  const port = parentPort;
  const { send, close } = smtpPools(workerData.smtpThread);
  port.on('message', (msg) => {
    if (msg.type === 'close') {
      // Every answer is still posted; the thread ends once its last connection has closed (the
      // port no longer keeps it alive).
      close();
      port.unref();
      return;
    }
    void send(msg.body).then((outcome) => port.postMessage({ id: msg.id, body: outcome }));
  });
}
