// POST /api/v1/send/push end to end (§17): the worker in this process sends through the FCM fake
// (OAuth2 token minted from the service-account key) and the APNs fake (HTTP/2 over TLS); a token
// the provider no longer knows expires its record once, with one push.token_invalidated.
import { INestApplication } from '@nestjs/common';
import { TestingModule } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { blindIndexOf, fieldCipher } from '@app/domain';
import { sendingEnv, startWorker, waitForMessage } from '../sending/support/sending';
import { createTestApp } from '../support/app';
import { ApnsFake } from '../support/providers/apns-fake';
import { FcmFake } from '../support/providers/fcm-fake';
import { createSession, Session } from '../support/session';
import { waitFor } from '../support/wait-for';
import { Receiver } from '../webhooks/webhook-support';
import { connect, fcmAccount, spentForTheDay } from './support/accounts';

const ANDROID = 'fcm-token-' + 'b'.repeat(140);
const GONE = 'fcm-token-' + 'c'.repeat(140);
const IPHONE = 'd'.repeat(64);

describe('POST /api/v1/send/push → FCM and APNs', () => {
  let fcm: FcmFake;
  let apns: ApnsFake;
  let app: INestApplication;
  let worker: TestingModule;
  let s: Session;
  let ds: DataSource;
  let receiver: Receiver;

  beforeAll(async () => {
    fcm = new FcmFake();
    await fcm.start();
    apns = await ApnsFake.start();
    sendingEnv({
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      PROVIDER_TLS_CA: apns.cert,
      DELIVERY_RETRY_BASE_MS: '300',
    });
    app = await createTestApp();
    worker = await startWorker();
    s = await createSession(app, { plan: 'pro' });
    ds = app.get(DataSource);
    await connect(s, fcmAccount(fcm));
    await s.http
      .post('/api/v1/user/channel-providers', {
        channel: 'push',
        provider: 'apns',
        name: 'APNs',
        credentials: { keyId: apns.keyId, teamId: apns.teamId, privateKey: apns.privateKey },
        settings: { bundleId: apns.bundleId, environment: 'sandbox', apiBaseUrl: apns.url },
      })
      .expect(201);
    receiver = await new Receiver().start();
    await s.http
      .post('/api/v1/user/webhook-endpoints', {
        url: receiver.url,
        events: ['message.sent', 'message.failed', 'push.token_invalidated'],
      })
      .expect(201);
  });
  afterAll(async () => {
    await worker.close();
    await app.close();
    await Promise.all([fcm.stop(), apns.close(), receiver.stop()]);
  });

  async function insertPushContact(token: string, platform: string): Promise<string> {
    const [contact]: { id: string }[] = await ds.query(
      `INSERT INTO contacts (organization_id, status) VALUES ($1, 'active') RETURNING id`,
      [s.org.id],
    );
    await ds.query(
      `INSERT INTO contact_push (organization_id, contact_id, device_token, device_token_hash,
         platform, status, is_primary) VALUES ($1, $2, $3, $4, $5, 'active', true)`,
      [s.org.id, contact.id, fieldCipher().encrypt(token), blindIndexOf('token', token), platform],
    );
    return contact.id;
  }

  const record = async (token: string) =>
    (
      await ds.query(
        `SELECT status, last_used_at FROM contact_push
          WHERE organization_id = $1 AND device_token_hash = $2`,
        [s.org.id, blindIndexOf('token', token)],
      )
    )[0] as { status: string; last_used_at: Date | null };

  async function send(to: Record<string, string>) {
    const res = await s.http
      .post('/api/v1/send/push', { to, content: { title: 'Hello', body: 'Your order shipped' } })
      .expect(202);
    expect(res.body.data).toMatchObject({ channel: 'push', status: 'queued' });
    return res.body.data.jobId as string;
  }

  it('sends by raw Android token through FCM', async () => {
    fcm.registerToken(ANDROID);
    const jobId = await send({ deviceToken: ANDROID, platform: 'android' });
    await waitForMessage(s.http, jobId, (m) => m.status === 'sent');
    expect(JSON.stringify(fcm.messages.at(-1))).toContain('Your order shipped');
  });

  it('sends by contactId to an iPhone through APNs and records its last use', async () => {
    const contactId = await insertPushContact(IPHONE, 'ios');
    const jobId = await send({ contactId });
    const m = await waitForMessage(s.http, jobId, (x) => x.status === 'sent');
    expect(m.recipients).toEqual([IPHONE]);
    expect(JSON.stringify(apns.received.at(-1))).toContain('Your order shipped');
    expect((await record(IPHONE)).last_used_at).not.toBeNull();
  });

  it('expires an UNREGISTERED token once, with one push.token_invalidated', async () => {
    fcm.registerToken(GONE, 'unregistered');
    const contactId = await insertPushContact(GONE, 'android');
    const first = await send({ contactId });
    const bounced = await waitForMessage(s.http, first, (m) => m.status === 'bounced');
    expect(bounced.deliveryAttempts).toEqual([expect.objectContaining({ status: 'bounced' })]);
    expect((await record(GONE)).status).toBe('expired');

    // The next send to it is suppressed: nothing reaches FCM, no second event.
    const sentBefore = fcm.messages.length;
    const second = await send({ contactId });
    await waitForMessage(s.http, second, (m) => m.status === 'suppressed');
    expect(fcm.messages.length).toBe(sentBefore);
    const invalidated = await waitFor(
      () => {
        const all = receiver.requests
          .map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> })
          .filter((e) => e.type === 'push.token_invalidated');
        const failed = receiver.requests.filter((r) => r.body.includes(second));
        return all.length && failed.length ? all : null;
      },
      { what: 'the invalidation and the suppressed message events' },
    );
    expect(invalidated).toHaveLength(1);
    expect(invalidated[0].data).toMatchObject({ contactId, reason: 'provider', status: 'expired' });
  });

  it('answers 422 naming the field when a raw token has no platform, 404 for another org', async () => {
    const res = await s.http
      .post('/api/v1/send/push', {
        to: { deviceToken: 'e'.repeat(64) },
        content: { title: 'Hi' },
      })
      .expect(422);
    expect(JSON.stringify(res.body)).toContain('to.platform');
    const contactId = await insertPushContact('f'.repeat(64), 'ios');
    const other = await createSession(app, { plan: 'pro' });
    await other.http
      .post('/api/v1/send/push', { to: { contactId }, content: { title: 'Hi' } })
      .expect(404);
  });

  it('counts a push in the same organization windows as email: at its limit, push is 429', async () => {
    const limited = await spentForTheDay(app, fcmAccount(fcm));
    const refused = await limited.http
      .post('/api/v1/send/push', {
        to: { deviceToken: ANDROID, platform: 'android' },
        content: { title: 'Over the limit' },
      })
      .expect(429);
    expect(refused.body).toMatchObject({ code: 'E_TOO_MANY_REQUESTS' });
    expect(JSON.stringify(fcm.messages)).not.toContain('Over the limit');
  });
});
