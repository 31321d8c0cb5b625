// The Telegram fake of development: the Bot API, in local mode so the platform's plain-HTTP
// loopback webhook is accepted (Telegram's own API takes https only). The platform sets the webhook
// itself; a message the API took is in the chat, so there is nothing to post after a send. A
// person opening the bot's t.me deep link is played from the catcher's page (`openDeepLink`): the
// fake posts the `/start <token>` update of a new person, as Telegram does.
const path = require('node:path');
const { keptCredentials, trim } = require('./common');

const BOT_USERNAME = 'mp_fake_bot';

/** The start token of a t.me link (`https://t.me/<bot>?start=<token>`), or the token itself. */
function startToken(given) {
  const text = String(given ?? '').trim();
  try {
    const url = new URL(text);
    return url.searchParams.get('start') ?? '';
  } catch {
    return text;
  }
}

async function start({ fakes, dir, port }) {
  const file = path.join(dir, 'telegram.json');
  const credentials = keptCredentials(file, () => ({ botToken: fakes.newBotToken() }));
  const telegram = await fakes.TelegramFake.start({
    botToken: credentials.botToken,
    botUsername: BOT_USERNAME,
    localMode: true,
    port,
  });
  return {
    account: {
      channel: 'telegram',
      provider: 'telegram-bot',
      name: 'Telegram fake',
      url: telegram.baseUrl,
      credentialsFile: file,
      credentials: { botToken: telegram.botToken },
      settings: { botUsername: telegram.botUsername, apiBaseUrl: telegram.baseUrl },
    },
    get webhookUrl() {
      return telegram.webhook?.url ?? null;
    },
    /** A new person opens the bot's deep link with `given` (a t.me link or its start token). */
    async openDeepLink(given) {
      const token = startToken(given);
      let opened;
      try {
        opened = await telegram.openDeepLink(token || null);
      } catch (err) {
        return { ok: false, message: err.message };
      }
      const posted = opened.deliveries[opened.deliveries.length - 1];
      const text = `/start${token ? ` ${token}` : ''}`;
      if (posted.status === null) {
        const why = telegram.webhook ? 'the webhook did not answer' : 'no webhook is set yet';
        return { ok: false, chatId: opened.chatId, message: `"${text}" from chat ${opened.chatId} is queued: ${why}` };
      }
      return {
        ok: posted.status >= 200 && posted.status < 300,
        chatId: opened.chatId,
        message: `"${text}" from chat ${opened.chatId} posted to the webhook: HTTP ${posted.status}`,
      };
    },
    tick() {
      for (const list of [telegram.messages, telegram.requests, telegram.deliveries, telegram.pending])
        trim(list);
    },
    messages: () =>
      telegram.messages.map((m) => ({
        id: `${m.chatId}:${m.messageId}`,
        receivedAt: new Date(m.date * 1000).toISOString(),
        channel: 'telegram',
        provider: 'telegram-bot',
        from: `@${telegram.botUsername}`,
        to: String(m.chatId),
        text: m.text,
        parseMode: m.parseMode,
        status: 'delivered',
        callback: null,
      })),
    clear() {
      telegram.messages.length = 0;
    },
    close: () => telegram.stop(),
  };
}

module.exports = { start, startToken };
