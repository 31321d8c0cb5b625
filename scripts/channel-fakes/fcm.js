// The FCM fake of development: push through FCM HTTP v1 and its OAuth2 token endpoint. It takes any
// device token, so an app's real token reaches it. Its credentials file is the service-account key,
// which names the token endpoint: a key kept for another port is replaced.
const path = require('node:path');
const { readJson, trim, writeJson } = require('./common');

async function start({ fakes, dir, port }) {
  const file = path.join(dir, 'fcm.json');
  const kept = readJson(file);
  const key = port && kept && kept.token_uri === `http://127.0.0.1:${port}/token` ? kept : undefined;
  const fcm = new fakes.FcmFake({ port, serviceAccount: key, acceptAnyToken: true });
  await fcm.start();
  if (!key) writeJson(file, fcm.serviceAccount);
  return {
    account: {
      channel: 'push',
      provider: 'fcm',
      name: 'FCM fake',
      url: fcm.url,
      credentialsFile: file,
      credentials: { serviceAccount: fcm.serviceAccount },
      settings: { apiBaseUrl: fcm.url },
    },
    tick() {
      trim(fcm.messages);
      trim(fcm.tokenRequests);
    },
    messages: () =>
      fcm.messages
        .filter((m) => !m.validateOnly)
        .map((m) => {
          const n = m.message.notification ?? {};
          return {
            id: m.name,
            receivedAt: m.at.toISOString(),
            channel: 'push',
            provider: 'fcm',
            from: m.projectId,
            to: m.message.token,
            title: n.title ?? null,
            body: n.body ?? null,
            data: m.message.data ?? {},
            status: 'accepted',
            callback: null,
          };
        }),
    clear() {
      fcm.messages.length = 0;
    },
    close: () => fcm.stop(),
  };
}

module.exports = { start };
