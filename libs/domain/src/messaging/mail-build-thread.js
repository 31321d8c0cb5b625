// Building the outgoing messages to sign, run in worker threads (mail-build-threads.ts starts
// them, one per core): nodemailer composes each message's MIME and signs it (DKIM) here, off the
// delivery worker's event loop and off the SMTP thread, which sends the bytes as they are.
// Plain JavaScript that needs no compilation, so the thread loads this very file whether the app
// runs built or from its sources; the message shapes are in mail-build-threads.ts.
'use strict';
const nodemailer = require('nodemailer');
const { parentPort, workerData } = require('node:worker_threads');

/** The message's bytes as an SMTP transport would send them (CRLF lines, signed when asked). */
function builder() {
  const compose = nodemailer.createTransport({
    streamTransport: true,
    buffer: true,
    // Messages are built from stored content only: never read a file or URL named in a payload.
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return async (mail) => {
    // A Buffer arrives as a plain Uint8Array, which nodemailer would not take as content.
    if (mail.raw instanceof Uint8Array && !Buffer.isBuffer(mail.raw)) {
      mail.raw = Buffer.from(mail.raw.buffer, mail.raw.byteOffset, mail.raw.byteLength);
    }
    try {
      const info = await compose.sendMail(mail);
      return { raw: info.message };
    } catch (err) {
      return {
        err: {
          code: typeof err.code === 'string' ? err.code : 'EMESSAGE',
          message: String(err.message),
        },
      };
    }
  };
}

if (parentPort && workerData && workerData.mailBuildThread) {
  const port = parentPort;
  const build = builder();
  port.on('message', (msg) => {
    if (msg.type === 'close') {
      port.unref();
      return;
    }
    void build(msg.body).then((built) => port.postMessage({ id: msg.id, body: built }));
  });
}
