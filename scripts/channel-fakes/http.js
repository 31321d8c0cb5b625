// The receiver of the generic `http` provider in development: a service speaking the protocol of
// docs/channels/http.md. It checks each message's Standard Webhooks signature, answers 202 with
// its own id and, a second later, posts the message's `delivered` status to its statusCallbackUrl,
// signed with the same secret. Its account serves SMS; `--channel` connects it to any channel.
const { randomBytes } = require('node:crypto');
const path = require('node:path');
const { CALLBACK_DELAY_MS, callbackLog, keptCredentials, stampOnPush, trim } = require('./common');

async function start({ fakes, dir, port }) {
  const file = path.join(dir, 'http.json');
  const credentials = keptCredentials(file, () => ({
    secret: `whsec_${randomBytes(32).toString('base64')}`,
  }));
  const receiver = await fakes.HttpReceiver.start({ ...credentials, port });
  stampOnPush(receiver.messages);
  const callbacks = callbackLog();
  const idOf = (m) => m.receiverId ?? m.body.id;
  return {
    account: {
      channel: 'sms',
      provider: 'http',
      name: 'HTTP receiver fake',
      url: receiver.url,
      credentialsFile: file,
      credentials: { secret: receiver.secret },
      settings: { url: receiver.url },
    },
    tick(now) {
      for (const m of receiver.messages) {
        if (m.at.getTime() > now - CALLBACK_DELAY_MS) continue;
        callbacks.run(idOf(m), [['delivered', () => receiver.postStatus(idOf(m), 'delivered')]]);
      }
      trim(receiver.messages);
      callbacks.keep(new Set(receiver.messages.map(idOf)));
    },
    messages: () =>
      receiver.messages.map((m) => {
        const c = m.body.content ?? {};
        return {
          id: idOf(m),
          receivedAt: m.at.toISOString(),
          channel: m.body.channel,
          provider: 'http',
          from: null,
          to: m.body.to,
          text: c.text ?? c.body ?? (c.template ? `Template ${c.template.name}` : JSON.stringify(c)),
          ...(c.title !== undefined ? { title: c.title } : {}),
          content: c,
          status: callbacks.has(idOf(m)) ? 'delivered' : 'accepted',
          callback: callbacks.get(idOf(m)),
        };
      }),
    clear() {
      receiver.messages.length = 0;
      callbacks.clear();
    },
    close: () => receiver.stop(),
  };
}

module.exports = { start };
