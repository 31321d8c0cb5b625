// The Twilio fake of the tests (test/support/providers/twilio-fake.ts) in its own process, so the
// bench's client and the provider do not share an event loop. Speaks to its parent over IPC:
// {baseUrl, accountSid, authToken} once listening; on 'count' {accepted, requests}; on 'take' the
// receive times (ms since the epoch) of the messages accepted since the last 'take', which it then
// forgets, with the requests seen over that time.
import { TwilioFake } from '../../test/support/providers/twilio-fake';

async function main(): Promise<void> {
  const fake = await TwilioFake.start();
  process.send!({ baseUrl: fake.baseUrl, accountSid: fake.accountSid, authToken: fake.authToken });
  process.on('message', (m: string) => {
    if (m === 'count') process.send!({ accepted: fake.messages.length, requests: fake.requests });
    if (m === 'take') {
      const times = fake.messages.map((msg) => msg.dateCreated.getTime());
      process.send!({ times, requests: fake.requests });
      fake.messages.length = 0;
      fake.requests = 0;
    }
    if (m === 'stop') void fake.stop().then(() => process.exit(0));
  });
}

void main();
