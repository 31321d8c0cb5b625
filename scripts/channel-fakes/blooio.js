// The Blooio fake of development: iMessage through Blooio's API. Blooio's webhook belongs to the
// organization: it is created with Blooio's `POST /webhooks` or set on the catcher's connect page
// (`setWebhookUrl`), and kept in webhooks.json. The fake's signing secret is known from the start,
// so the account to connect carries it (a real account adds it once the webhook exists). A second
// after each send it posts what the device did, signed X-Blooio-Signature as Blooio signs it:
// `message.sent` then `message.delivered` (over SMS to the fake's SMS-only number, `message.failed`
// to its Apple ID not on iMessage).
const { randomBytes } = require('node:crypto');
const path = require('node:path');
const { CALLBACK_DELAY_MS, callbackLog, keptCredentials, stampOnPush, trim } = require('./common');

const FROM = '+14155550111';

async function start({ fakes, dir, port, webhooks }) {
  const file = path.join(dir, 'blooio.json');
  const credentials = keptCredentials(file, () => ({
    apiKey: `bl_live_${randomBytes(16).toString('hex')}`,
    signingSecret: `whsec_${randomBytes(20).toString('hex')}`,
  }));
  const blooio = await fakes.BlooioFake.start({ ...credentials, fromNumber: FROM, port });
  blooio.webhookUrl = webhooks.get('blooio');
  stampOnPush(blooio.messages);
  const callbacks = callbackLog();
  const settle = (id) => [
    'delivered',
    async () => {
      const posted = await blooio.settle(id);
      const last = posted[posted.length - 1];
      return { status: last.status, label: String(last.body.event) };
    },
  ];
  return {
    account: {
      channel: 'imessage',
      provider: 'blooio',
      name: 'Blooio fake',
      url: blooio.baseUrl,
      credentialsFile: file,
      credentials: { apiKey: blooio.apiKey, signingSecret: blooio.signingSecret },
      settings: { fromNumber: FROM, apiBaseUrl: blooio.baseUrl },
    },
    get webhookUrl() {
      return blooio.webhookUrl;
    },
    setWebhookUrl(url) {
      blooio.webhookUrl = url;
      webhooks.set('blooio', url);
      return { ok: true, message: 'Webhook saved' };
    },
    tick(now) {
      // A webhook created through Blooio's own API is kept too.
      if (blooio.webhookUrl) {
        webhooks.set('blooio', blooio.webhookUrl);
        for (const m of blooio.messages) {
          if (m.at.getTime() > now - CALLBACK_DELAY_MS) continue;
          callbacks.run(m.messageId, [settle(m.messageId)]);
        }
      }
      trim(blooio.messages);
      callbacks.keep(new Set(blooio.messages.map((m) => m.messageId)));
    },
    messages: () =>
      blooio.messages.map((m) => ({
        id: m.messageId,
        receivedAt: m.at.toISOString(),
        channel: 'imessage',
        provider: 'blooio',
        from: m.fromNumber,
        to: m.chatId,
        text: m.text,
        mediaUrls: m.attachments,
        status: m.status,
        protocol: m.protocol,
        callback: callbacks.get(m.messageId) ?? (blooio.webhookUrl ? null : 'no webhook set'),
      })),
    clear() {
      blooio.messages.length = 0;
      callbacks.clear();
    },
    close: () => blooio.stop(),
  };
}

module.exports = { start };
