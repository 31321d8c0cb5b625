// `POST /channel-providers/{id}/test` through the real adapters (§17): one SMS into the Twilio
// fake, one push into the FCM fake and one into the APNs fake (HTTP/2 over TLS), each fake checking
// what it receives as the provider would; refused credentials answer `unauthorized` and leave the
// account's counters, never its secret, in the response.
import { INestApplication } from '@nestjs/common';
import { createTestApp } from '../support/app';
import { createSession, Session } from '../support/session';
import { ApnsFake } from '../support/providers/apns-fake';
import { FcmFake } from '../support/providers/fcm-fake';
import { TwilioFake } from '../support/providers/twilio-fake';

const BASE = '/api/v1/user/channel-providers';
const DEVICE = 'a'.repeat(64);

describe('provider test sends through the real adapters', () => {
  let app: INestApplication;
  let s: Session;
  let twilio: TwilioFake;
  let fcm: FcmFake;
  let apns: ApnsFake;

  beforeAll(async () => {
    twilio = await TwilioFake.start();
    fcm = new FcmFake();
    await fcm.start();
    apns = await ApnsFake.start();
    process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';
    process.env.PROVIDER_TLS_CA = apns.cert;
    app = await createTestApp();
    s = await createSession(app, { plan: 'pro' });
  });
  afterAll(async () => {
    await app.close();
    await Promise.all([twilio.stop(), fcm.stop(), apns.close()]);
  });

  async function provider(body: Record<string, unknown>): Promise<string> {
    const res = await s.http.post(BASE, body).expect(201);
    return res.body.data.id as string;
  }

  it('sends an SMS into the Twilio fake with its credentials and sender', async () => {
    const id = await provider({
      channel: 'sms',
      provider: 'twilio',
      name: 'Twilio',
      credentials: { accountSid: twilio.accountSid, authToken: twilio.authToken },
      settings: { from: '+14155550100', apiBaseUrl: twilio.baseUrl },
    });
    const res = await s.http
      .post(`${BASE}/${id}/test`, { to: '+14155550123', text: 'Hello from the test' })
      .expect(200);
    expect(res.body.data).toMatchObject({ outcome: 'accepted' });
    expect(twilio.messages).toHaveLength(1);
    expect(twilio.messages[0]).toMatchObject({
      to: '+14155550123',
      from: '+14155550100',
      body: 'Hello from the test',
    });
    expect(JSON.stringify(res.body)).not.toContain(twilio.authToken);
  });

  it('answers unauthorized when Twilio refuses the credentials', async () => {
    const id = await provider({
      channel: 'sms',
      provider: 'twilio',
      name: 'Wrong token',
      credentials: { accountSid: twilio.accountSid, authToken: 'f'.repeat(32) },
      settings: { from: '+14155550100', apiBaseUrl: twilio.baseUrl },
    });
    const res = await s.http
      .post(`${BASE}/${id}/test`, { to: '+14155550123', text: 'Hi' })
      .expect(200);
    expect(res.body.data).toMatchObject({ outcome: 'unauthorized' });
    expect(JSON.stringify(res.body)).not.toContain('f'.repeat(32));
  });

  it('sends a push into the FCM fake with a minted access token', async () => {
    fcm.registerToken(DEVICE);
    const id = await provider({
      channel: 'push',
      provider: 'fcm',
      name: 'FCM',
      credentials: { serviceAccount: fcm.serviceAccount },
      settings: { apiBaseUrl: fcm.url },
    });
    const res = await s.http
      .post(`${BASE}/${id}/test`, { to: DEVICE, title: 'Hello', body: 'From the test' })
      .expect(200);
    expect(res.body.data).toMatchObject({ outcome: 'accepted' });
    expect(fcm.tokenRequests.length).toBeGreaterThanOrEqual(1);
    expect(fcm.messages).toHaveLength(1);
    expect(JSON.stringify(fcm.messages[0])).toContain('From the test');
  });

  it('sends a push into the APNs fake over HTTP/2 with a provider token', async () => {
    const id = await provider({
      channel: 'push',
      provider: 'apns',
      name: 'APNs',
      credentials: { keyId: apns.keyId, teamId: apns.teamId, privateKey: apns.privateKey },
      settings: { bundleId: apns.bundleId, environment: 'sandbox', apiBaseUrl: apns.url },
    });
    const res = await s.http
      .post(`${BASE}/${id}/test`, { to: DEVICE, title: 'Hello', body: 'From the test' })
      .expect(200);
    expect(res.body.data).toMatchObject({ outcome: 'accepted' });
    expect(apns.received).toHaveLength(1);
    expect(JSON.stringify(apns.received[0])).toContain('From the test');
  });
});
