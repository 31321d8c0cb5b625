// The WhatsApp fake of development: Meta's WhatsApp Cloud API. Meta posts statuses to the one
// callback URL set in the App Dashboard; here it is set on the catcher's connect page
// (`setCallbackUrl`), which first runs Meta's verification GET with the account's verify token,
// and is kept in webhooks.json. A second after each send it posts the message's `sent` then
// `delivered` status, signed X-Hub-Signature-256 under the app secret as Meta signs them.
const path = require('node:path');
const { CALLBACK_DELAY_MS, callbackLog, keptCredentials, trim } = require('./common');

/** The account's `settings.verifyToken`: a string the organization chooses, not a secret. */
const VERIFY_TOKEN = 'mp-fake-verify-token';

async function start({ fakes, dir, port, webhooks }) {
  const file = path.join(dir, 'whatsapp.json');
  const credentials = keptCredentials(file, () => {
    const made = new fakes.WhatsappFake();
    return { accessToken: made.accessToken, appSecret: made.appSecret };
  });
  const whatsapp = await fakes.WhatsappFake.start({
    ...credentials,
    port,
    callbackUrl: webhooks.get('whatsapp') ?? undefined,
  });
  // Every number's 24-hour customer-service window is open, as if each person had just written:
  // free text goes through without an approved template. The fake's tests cover the window.
  whatsapp.windowOpen = () => true;
  const callbacks = callbackLog();
  const status = (id) => (s) => [s, () => whatsapp.status(id, s)];
  return {
    account: {
      channel: 'whatsapp',
      provider: 'whatsapp-cloud',
      name: 'WhatsApp fake',
      url: whatsapp.baseUrl,
      credentialsFile: file,
      credentials: { accessToken: whatsapp.accessToken, appSecret: whatsapp.appSecret },
      settings: {
        phoneNumberId: whatsapp.phoneNumberId,
        businessAccountId: whatsapp.businessAccountId,
        verifyToken: VERIFY_TOKEN,
        apiBaseUrl: whatsapp.baseUrl,
      },
    },
    get callbackUrl() {
      return whatsapp.callbackUrl ?? null;
    },
    /** Meta's check of a new callback URL; the URL is kept only when it answers the challenge. */
    async setCallbackUrl(url) {
      let check;
      try {
        check = await whatsapp.verifyCallback(VERIFY_TOKEN, url);
      } catch (err) {
        return { ok: false, message: `The verification GET failed: ${err.cause?.code ?? err.message}` };
      }
      if (!check.verified) {
        return { ok: false, message: `The callback URL did not answer the challenge (HTTP ${check.status})` };
      }
      whatsapp.callbackUrl = url;
      webhooks.set('whatsapp', url);
      return { ok: true, message: 'Callback URL verified and saved' };
    },
    tick(now) {
      if (whatsapp.callbackUrl) {
        for (const m of whatsapp.messages) {
          if (m.createdAt.getTime() > now - CALLBACK_DELAY_MS) continue;
          callbacks.run(m.id, ['sent', 'delivered'].map(status(m.id)));
        }
      }
      trim(whatsapp.messages);
      trim(whatsapp.requests);
      callbacks.keep(new Set(whatsapp.messages.map((m) => m.id)));
    },
    messages: () =>
      whatsapp.messages.map((m) => ({
        id: m.id,
        receivedAt: m.createdAt.toISOString(),
        channel: 'whatsapp',
        provider: 'whatsapp-cloud',
        from: `+${whatsapp.displayPhoneNumber}`,
        to: `+${m.waId}`,
        text: m.text
          ? m.text.body
          : `Template ${m.template.name} (${m.template.language})` +
            (m.template.parameters.length ? `: ${m.template.parameters.join(', ')}` : ''),
        template: m.template ?? null,
        status: m.status,
        callback: callbacks.get(m.id) ?? (whatsapp.callbackUrl ? null : 'no callback URL set'),
      })),
    clear() {
      whatsapp.messages.length = 0;
      callbacks.clear();
    },
    close: () => whatsapp.stop(),
  };
}

module.exports = { start };
