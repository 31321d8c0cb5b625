// DKIM key generation in a worker thread (dkim-key.ts starts it): generateKeyPairSync runs on this
// thread itself, never on libuv's threadpool, which login's scrypt and the other async crypto of
// the process share. Plain JavaScript, so the thread loads this very file whether the app runs
// built or from its sources.
'use strict';
const { generateKeyPairSync } = require('node:crypto');
const { parentPort, threadId } = require('node:worker_threads');

parentPort.on('message', ({ id, bits }) => {
  const startedAt = performance.timeOrigin + performance.now();
  try {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', {
      modulusLength: bits,
      publicKeyEncoding: { type: 'spki', format: 'der' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    parentPort.postMessage({
      id,
      publicKey: publicKey.toString('base64'),
      privateKey,
      threadId,
      startedAt,
      endedAt: performance.timeOrigin + performance.now(),
    });
  } catch (err) {
    parentPort.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
