// The WhatsApp Cloud API fake of the tests (test/support/providers/whatsapp-fake.ts) in its own
// process, so the bench's processes and the provider do not share an event loop. Speaks to its
// parent over IPC: {baseUrl, accessToken, appSecret, phoneNumberId} once listening; on 'count'
// {accepted, requests}; on 'take' the receive times of the messages accepted since the last
// 'take', which it then forgets.
import { WhatsappFake } from '../../test/support/providers/whatsapp-fake';

async function main(): Promise<void> {
  const fake = await WhatsappFake.start();
  process.send!({
    baseUrl: fake.baseUrl,
    accessToken: fake.accessToken,
    appSecret: fake.appSecret,
    phoneNumberId: fake.phoneNumberId,
  });
  process.on('message', (m: string) => {
    if (m === 'count') {
      process.send!({ accepted: fake.messages.length, requests: fake.requests.length });
    }
    if (m === 'take') {
      process.send!({
        times: fake.messages.map((msg) => msg.createdAt.getTime()),
        requests: fake.requests.length,
      });
      fake.messages.length = 0;
      fake.requests.length = 0;
    }
    if (m === 'stop') void fake.stop().then(() => process.exit(0));
  });
}

void main();
