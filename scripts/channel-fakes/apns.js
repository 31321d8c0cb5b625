// The APNs fake of development: push over HTTP/2 and TLS with a self-signed certificate, which the
// platform trusts through PROVIDER_TLS_CA (`tlsCa`). It takes device tokens of 64 hex digits.
const path = require('node:path');
const { readJson, trim, writeJson } = require('./common');

const BUNDLE_ID = 'com.example.app';

/** A push payload's text: `aps.alert`, a string or {title, body}. */
function alertOf(payload) {
  const alert = payload.aps && payload.aps.alert;
  if (typeof alert === 'string') return { title: null, body: alert };
  return { title: (alert && alert.title) ?? null, body: (alert && alert.body) ?? null };
}

async function start({ fakes, dir, port }) {
  const file = path.join(dir, 'apns.json');
  const key = readJson(file);
  const apns = await fakes.ApnsFake.start({
    port,
    bundleId: BUNDLE_ID,
    ...(key ? { keyId: key.keyId, teamId: key.teamId, privateKey: key.privateKey } : {}),
  });
  const credentials = { keyId: apns.keyId, teamId: apns.teamId, privateKey: apns.privateKey };
  if (!key) writeJson(file, credentials);
  return {
    account: {
      channel: 'push',
      provider: 'apns',
      name: 'APNs fake',
      url: apns.url,
      credentialsFile: file,
      credentials,
      settings: { bundleId: apns.bundleId, environment: 'sandbox', apiBaseUrl: apns.url },
    },
    tlsCa: apns.cert,
    tick() {
      trim(apns.received);
      trim(apns.attempts);
    },
    messages: () =>
      apns.received.map((n) => {
        const data = { ...n.payload };
        delete data.aps;
        const alert = alertOf(n.payload);
        return {
          id: n.apnsId,
          receivedAt: n.at.toISOString(),
          channel: 'push',
          provider: 'apns',
          from: n.headers['apns-topic'],
          to: n.deviceToken,
          ...alert,
          data,
          status: 'accepted',
          callback: null,
        };
      }),
    clear() {
      apns.received.length = 0;
    },
    close: () => apns.stop(),
  };
}

module.exports = { start };
