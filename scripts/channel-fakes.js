// The provider fakes of the tests (test/support/providers: Twilio's Messaging API, FCM HTTP v1 with
// its OAuth2 token endpoint, APNs over HTTP/2 and TLS), run by `npm start` in development so that
// an SMS or a push leaves without an account anywhere. The same servers as the tests', compiled by
// scripts/build.js (target `channel-fakes`) and run in the launcher's process; the mail catcher's
// Channels page shows what they took (scripts/catcher-channels.js).
//
// Their credentials are made on first start and kept in $DATA_DIR/channel-fakes/ (twilio.json,
// fcm.json: the service-account key, apns.json), each file what `mp-admin add-provider
// --credentials-file` takes: an account connected to a fake keeps working after a restart, as the
// embedded database keeps the account. They are a local fake's, not secrets of any real account.
//
// Development conveniences the tests do not use: the FCM fake takes any device token (an app's
// real token reaches it), and the Twilio fake posts each message's status callbacks (`sent`, then
// `delivered`) as Twilio does, so the message log shows the SMS delivered.
const { randomBytes } = require('node:crypto');
const { mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const out = path.join(root, 'dist/channel-fakes');
/** What each fake keeps for the Channels page (the newest); older messages are dropped. */
const KEEP = 500;
const SCAN_MS = 500;
/**
 * A status callback waits this long after the send: the platform stores the message's SID once
 * Twilio's answer reaches it, and a callback that came first would find no message to update.
 */
const CALLBACK_DELAY_MS = 1000;
const TWILIO_FROM = '+15005550006';
const APNS_BUNDLE_ID = 'com.example.app';

/** The compiled fakes; plain tsc leaves '@app/domain' as written, so it is resolved here. */
function loadFakes() {
  const domain = path.join(out, 'libs/domain/src');
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    if (request === '@app/domain') request = domain;
    else if (request.startsWith('@app/domain/')) request = path.join(domain, request.slice(12));
    return resolve.call(this, request, ...rest);
  };
  const load = (name) => require(path.join(out, 'test/support/providers', `${name}.js`));
  return { ...load('twilio-fake'), ...load('fcm-fake'), ...load('apns-fake') };
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

const writeJson = (file, value) =>
  writeFileSync(file, JSON.stringify(value, null, 2) + '\n', { mode: 0o600 });

/** Drops all but the newest KEEP entries of a fake's list (oldest first). */
const trim = (list) => list.length > KEEP && list.splice(0, list.length - KEEP);

/** A push payload's text: APNs' `aps.alert` (a string or {title, body}), FCM's `notification`. */
function apnsAlert(payload) {
  const alert = payload.aps && payload.aps.alert;
  if (typeof alert === 'string') return { title: null, body: alert };
  return { title: (alert && alert.title) ?? null, body: (alert && alert.body) ?? null };
}

/**
 * Starts the three fakes on `ports` (0: a free one) with the credentials kept in `dataDir`.
 * Resolves with what the launcher and the Channels page use: the accounts to connect, the
 * messages taken, the APNs fake's certificate (PROVIDER_TLS_CA) and `close`.
 */
async function startChannelFakes({ dataDir, ports = {} }) {
  const { TwilioFake, FcmFake, ApnsFake } = loadFakes();
  const dir = path.join(dataDir, 'channel-fakes');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const files = {
    twilio: path.join(dir, 'twilio.json'),
    fcm: path.join(dir, 'fcm.json'),
    apns: path.join(dir, 'apns.json'),
  };

  let twilioCredentials = readJson(files.twilio);
  if (!twilioCredentials) {
    twilioCredentials = {
      accountSid: `AC${randomBytes(16).toString('hex')}`,
      authToken: randomBytes(16).toString('hex'),
    };
    writeJson(files.twilio, twilioCredentials);
  }
  // A key names its token endpoint: one kept for another port is replaced.
  const keptKey = readJson(files.fcm);
  const fcmPort = ports.fcm ?? 0;
  const fcmKey =
    fcmPort && keptKey && keptKey.token_uri === `http://127.0.0.1:${fcmPort}/token`
      ? keptKey
      : undefined;
  const apnsKey = readJson(files.apns);

  const started = [];
  try {
    const twilio = await TwilioFake.start({ ...twilioCredentials, port: ports.twilio ?? 0 });
    started.push(twilio);
    const fcm = new FcmFake({ port: fcmPort, serviceAccount: fcmKey, acceptAnyToken: true });
    await fcm.start();
    started.push(fcm);
    if (!fcmKey) writeJson(files.fcm, fcm.serviceAccount);
    const apns = await ApnsFake.start({
      port: ports.apns ?? 0,
      bundleId: APNS_BUNDLE_ID,
      ...(apnsKey ? { keyId: apnsKey.keyId, teamId: apnsKey.teamId, privateKey: apnsKey.privateKey } : {}),
    });
    started.push(apns);
    if (!apnsKey) {
      writeJson(files.apns, { keyId: apns.keyId, teamId: apns.teamId, privateKey: apns.privateKey });
    }
    return running({ twilio, fcm, apns, files });
  } catch (err) {
    await Promise.all(started.map((f) => f.stop()));
    throw err;
  }
}

function running({ twilio, fcm, apns, files }) {
  const accounts = {
    twilio: {
      channel: 'sms',
      provider: 'twilio',
      name: 'Twilio fake',
      url: twilio.baseUrl,
      credentialsFile: files.twilio,
      credentials: { accountSid: twilio.accountSid, authToken: twilio.authToken },
      settings: { from: TWILIO_FROM, apiBaseUrl: twilio.baseUrl },
    },
    fcm: {
      channel: 'push',
      provider: 'fcm',
      name: 'FCM fake',
      url: fcm.url,
      credentialsFile: files.fcm,
      credentials: { serviceAccount: fcm.serviceAccount },
      settings: { apiBaseUrl: fcm.url },
    },
    apns: {
      channel: 'push',
      provider: 'apns',
      name: 'APNs fake',
      url: apns.url,
      credentialsFile: files.apns,
      credentials: { keyId: apns.keyId, teamId: apns.teamId, privateKey: apns.privateKey },
      settings: { bundleId: apns.bundleId, environment: 'sandbox', apiBaseUrl: apns.url },
    },
  };

  // The answer the platform gave to each SMS's status callbacks, by message SID.
  const callbacks = new Map();
  const deliver = async (m) => {
    for (const status of ['sent', 'delivered']) {
      try {
        const res = await twilio.deliver(m.sid, status);
        callbacks.set(m.sid, `${status}: HTTP ${res.status}`);
      } catch (err) {
        callbacks.set(m.sid, `${status}: ${err.cause?.code ?? err.message}`);
        return;
      }
    }
  };
  const scan = setInterval(() => {
    const due = Date.now() - CALLBACK_DELAY_MS;
    for (const m of twilio.messages) {
      if (!m.statusCallback || callbacks.has(m.sid) || m.dateCreated.getTime() > due) continue;
      callbacks.set(m.sid, 'pending');
      void deliver(m);
    }
    for (const list of [twilio.messages, fcm.messages, fcm.tokenRequests, apns.received, apns.attempts])
      trim(list);
    const kept = new Set(twilio.messages.map((m) => m.sid));
    for (const sid of callbacks.keys()) if (!kept.has(sid)) callbacks.delete(sid);
  }, SCAN_MS);
  scan.unref();

  /** Every message the fakes took, newest first, in one shape for every channel. */
  function messages() {
    const sms = twilio.messages.map((m) => ({
      id: m.sid,
      receivedAt: m.dateCreated.toISOString(),
      channel: 'sms',
      provider: 'twilio',
      from: m.from ?? m.messagingServiceSid,
      to: m.to,
      text: m.body,
      mediaUrls: m.mediaUrls,
      segments: m.numSegments,
      status: m.status,
      callback: callbacks.get(m.sid) ?? null,
    }));
    const viaFcm = fcm.messages
      .filter((m) => !m.validateOnly)
      .map((m) => ({
        id: m.name,
        receivedAt: m.at.toISOString(),
        channel: 'push',
        provider: 'fcm',
        from: m.projectId,
        to: m.message.token,
        title: m.message.notification?.title ?? null,
        body: m.message.notification?.body ?? null,
        data: m.message.data ?? {},
      }));
    const viaApns = apns.received.map((n) => {
      const data = { ...n.payload };
      delete data.aps;
      return {
        id: n.apnsId,
        receivedAt: n.at.toISOString(),
        channel: 'push',
        provider: 'apns',
        from: n.headers['apns-topic'],
        to: n.deviceToken,
        ...apnsAlert(n.payload),
        data,
      };
    });
    return [...sms, ...viaFcm, ...viaApns].sort((a, b) => b.receivedAt.localeCompare(a.receivedAt));
  }

  return {
    accounts,
    messages,
    /** Forgets what the fakes took (their credentials and registered tokens stay). */
    clear() {
      for (const list of [twilio.messages, fcm.messages, apns.received]) list.length = 0;
      callbacks.clear();
    },
    /** The APNs fake's self-signed certificate: what the platform must trust (PROVIDER_TLS_CA). */
    tlsCa: apns.cert,
    async close() {
      clearInterval(scan);
      await Promise.all([twilio.stop(), fcm.stop(), apns.stop()]);
    },
  };
}

/**
 * The `mp-admin add-provider` line that connects an organization ($ORG) to a fake. The CLI checks
 * the account's URLs as the api does, in its own process: it too must allow loopback targets.
 */
function addProviderCommand(account, cwd = process.cwd()) {
  const relative = path.relative(cwd, account.credentialsFile);
  const file = relative.startsWith('..') || path.isAbsolute(relative) ? account.credentialsFile : relative;
  const quote = (s) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  return (
    'WEBHOOK_ALLOW_PRIVATE_TARGETS=true npx mp-admin add-provider --org $ORG' +
    ` --channel ${account.channel} --provider ${account.provider}` +
    ` --name ${quote(account.name)} --credentials-file ${quote(file)} --settings ${quote(JSON.stringify(account.settings))}`
  );
}

module.exports = { startChannelFakes, addProviderCommand };
