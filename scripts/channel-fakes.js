// The provider fakes of the tests (test/support/providers), run by `npm start` in development so
// that a message leaves on every channel without an account anywhere: Twilio's Messaging API, FCM
// HTTP v1 with its OAuth2 token endpoint, APNs over HTTP/2 and TLS, Meta's WhatsApp Cloud API, the
// Telegram Bot API, Blooio's iMessage API, and a receiver of the generic `http` provider. The same
// servers as the tests', compiled by scripts/build.js (target `channel-fakes`) and run in the
// launcher's process; the mail catcher's Channels page shows what they took
// (scripts/catcher-channels.js). Each provider's part is in scripts/channel-fakes/.
//
// Their credentials are made on first start and kept in $DATA_DIR/channel-fakes/ (twilio.json,
// fcm.json: the service-account key, apns.json, whatsapp.json, telegram.json, blooio.json,
// http.json), each file what `mp-admin add-provider --credentials-file` takes: an account connected
// to a fake keeps working after a restart, as the embedded database keeps the account. The callback
// URLs set on the WhatsApp and Blooio fakes are kept beside them (webhooks.json). They are a local
// fake's, not secrets of any real account.
//
// Development conveniences the tests do not use: the FCM fake takes any device token; the Twilio,
// WhatsApp, Blooio and http fakes post each message's status callbacks a second after the send,
// signed as the provider signs them, so the message log shows it delivered; the WhatsApp fake holds
// every number's 24-hour window open; the Telegram fake plays a person opening a deep link.
const { mkdirSync } = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { webhookStore } = require('./channel-fakes/common');

const root = path.resolve(__dirname, '..');
const out = path.join(root, 'dist/channel-fakes');
const SCAN_MS = 500;
/** The fakes, in the order the launcher and the pages list them, by their part's file. */
const PROVIDERS = ['twilio', 'fcm', 'apns', 'whatsapp', 'telegram', 'blooio', 'http'];
const FILES = ['twilio-fake', 'fcm-fake', 'apns-fake', 'whatsapp-fake', 'telegram-fake', 'blooio-fake', 'http-receiver'];

/** The compiled fakes; plain tsc leaves '@app/domain' as written, so it is resolved here. */
function loadFakes() {
  const domain = path.join(out, 'libs/domain/src');
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    if (request === '@app/domain') request = domain;
    else if (request.startsWith('@app/domain/')) request = path.join(domain, request.slice(12));
    return resolve.call(this, request, ...rest);
  };
  return Object.assign({}, ...FILES.map((f) => require(path.join(out, 'test/support/providers', `${f}.js`))));
}

/**
 * Starts the fakes on `ports` ({twilio, fcm, apns, whatsapp, telegram, blooio, http}; 0 or absent:
 * a free one) with the credentials kept in `dataDir`. Resolves with what the launcher and the
 * Channels page use: the accounts to connect, the messages taken, the APNs fake's certificate
 * (PROVIDER_TLS_CA), the WhatsApp and Blooio callback URLs, the Telegram deep link, and `close`.
 */
async function startChannelFakes({ dataDir, ports = {} }) {
  const fakes = loadFakes();
  const dir = path.join(dataDir, 'channel-fakes');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const webhooks = webhookStore(dir);
  const parts = {};
  try {
    for (const name of PROVIDERS) {
      const { start } = require(`./channel-fakes/${name}`);
      parts[name] = await start({ fakes, dir, port: ports[name] ?? 0, webhooks });
    }
  } catch (err) {
    await Promise.all(Object.values(parts).map((p) => p.close()));
    throw err;
  }
  return running(parts);
}

function running(parts) {
  const all = Object.values(parts);
  const scan = setInterval(() => {
    const now = Date.now();
    for (const p of all) p.tick(now);
  }, SCAN_MS);
  scan.unref();

  return {
    accounts: Object.fromEntries(Object.entries(parts).map(([name, p]) => [name, p.account])),
    /** Every message the fakes took, newest first, in one shape for every channel. */
    messages: () =>
      all.flatMap((p) => p.messages()).sort((a, b) => b.receivedAt.localeCompare(a.receivedAt)),
    /** Forgets what the fakes took (their credentials, tokens and callback URLs stay). */
    clear() {
      for (const p of all) p.clear();
    },
    /** The APNs fake's self-signed certificate: what the platform must trust (PROVIDER_TLS_CA). */
    tlsCa: parts.apns.tlsCa,
    /** Where the WhatsApp, Blooio and Telegram fakes post their callbacks (null: not set). */
    callbackUrls: () => ({
      whatsapp: parts.whatsapp.callbackUrl,
      blooio: parts.blooio.webhookUrl,
      telegram: parts.telegram.webhookUrl,
    }),
    /** Sets the callback URL of the WhatsApp fake (verified first, as Meta does) or Blooio's. */
    setCallbackUrl: (name, url) =>
      name === 'whatsapp' ? parts.whatsapp.setCallbackUrl(url) : parts.blooio.setWebhookUrl(url),
    /** A new person opens the Telegram bot's deep link (a t.me link or its start token). */
    openTelegramDeepLink: (given) => parts.telegram.openDeepLink(given),
    async close() {
      clearInterval(scan);
      await Promise.all(all.map((p) => p.close()));
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
