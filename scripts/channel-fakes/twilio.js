// The Twilio fake of development: SMS through Twilio's Messaging API. It posts each message's
// status callbacks (`sent`, then `delivered`) a second after the send, signed as Twilio signs
// them, so the message log shows the SMS delivered.
const { randomBytes } = require('node:crypto');
const path = require('node:path');
const { CALLBACK_DELAY_MS, callbackLog, keptCredentials, trim } = require('./common');

const FROM = '+15005550006';

async function start({ fakes, dir, port }) {
  const file = path.join(dir, 'twilio.json');
  const credentials = keptCredentials(file, () => ({
    accountSid: `AC${randomBytes(16).toString('hex')}`,
    authToken: randomBytes(16).toString('hex'),
  }));
  const twilio = await fakes.TwilioFake.start({ ...credentials, port });
  const callbacks = callbackLog();
  const deliver = (sid) => (status) => [status, () => twilio.deliver(sid, status)];
  return {
    account: {
      channel: 'sms',
      provider: 'twilio',
      name: 'Twilio fake',
      url: twilio.baseUrl,
      credentialsFile: file,
      credentials: { accountSid: twilio.accountSid, authToken: twilio.authToken },
      settings: { from: FROM, apiBaseUrl: twilio.baseUrl },
    },
    tick(now) {
      for (const m of twilio.messages) {
        if (!m.statusCallback || m.dateCreated.getTime() > now - CALLBACK_DELAY_MS) continue;
        callbacks.run(m.sid, ['sent', 'delivered'].map(deliver(m.sid)));
      }
      trim(twilio.messages);
      callbacks.keep(new Set(twilio.messages.map((m) => m.sid)));
    },
    messages: () =>
      twilio.messages.map((m) => ({
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
        callback: callbacks.get(m.sid),
      })),
    clear() {
      twilio.messages.length = 0;
      callbacks.clear();
    },
    close: () => twilio.stop(),
  };
}

module.exports = { start };
