import { generateKeyPairSync } from 'node:crypto';
import { ClientHttp2Session, connect } from 'node:http2';
import { signApnsProviderToken } from '@app/domain/channels/providers/apns-jwt';
import { ManualClock } from '../clock';
import { ApnsFake } from './apns-fake';

// Apple's example request ("Sending notification requests to APNs"): its device token, apns-id,
// topic and payload; the key id and team id of Apple's provider-token example.
const DEVICE = '00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0';
const APNS_ID = 'eabeae54-14a8-11e5-b60b-1697f925ec7b';
const EXAMPLE_PAYLOAD = '{ "aps" : { "alert" : "Hello" } }';

interface Answer {
  status: number;
  apnsId: string | undefined;
  body: Record<string, unknown> | undefined;
}

describe(ApnsFake.name, () => {
  let fake: ApnsFake;
  let clock: ManualClock;
  const sessions: ClientHttp2Session[] = [];

  beforeAll(async () => {
    clock = new ManualClock(new Date('2025-03-01T12:00:00Z'));
    fake = await ApnsFake.start({
      bundleId: 'com.example.MyApp',
      keyId: 'ABC123DEFG',
      teamId: 'DEF123GHIJ',
      clock,
    });
  });
  afterAll(async () => {
    for (const s of sessions) s.destroy();
    await fake.close();
  });

  const nowS = () => Math.floor(clock.now().getTime() / 1000);
  const token = (iat = nowS(), privateKey = fake.privateKey, keyId = fake.keyId) =>
    signApnsProviderToken({ keyId, teamId: fake.teamId, privateKey }, iat);

  function session(): ClientHttp2Session {
    const s = connect(fake.url, { ca: fake.cert });
    s.on('error', () => undefined);
    sessions.push(s);
    return s;
  }

  function post(
    s: ClientHttp2Session,
    path: string,
    headers: Record<string, string>,
    body: string,
    method = 'POST',
  ): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = s.request({ ':method': method, ':path': path, ...headers });
      let status = 0;
      let apnsId: string | undefined;
      const chunks: Buffer[] = [];
      req.on('response', (h) => {
        status = Number(h[':status']);
        apnsId = h['apns-id'] as string | undefined;
      });
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status, apnsId, body: text ? JSON.parse(text) : undefined });
      });
      req.on('error', reject);
      if (method === 'POST') req.end(body);
    });
  }

  const exampleHeaders = (auth = `bearer ${token()}`): Record<string, string> => ({
    authorization: auth,
    'apns-id': APNS_ID,
    'apns-push-type': 'alert',
    'apns-expiration': '0',
    'apns-priority': '10',
    'apns-topic': 'com.example.MyApp',
  });
  const send = (headers: Record<string, string>, body = EXAMPLE_PAYLOAD, device = DEVICE) =>
    post(session(), `/3/device/${device}`, headers, body);

  it("accepts Apple's example request, echoes its apns-id and keeps headers and payload", async () => {
    const answer = await send(exampleHeaders());
    expect(answer).toEqual({ status: 200, apnsId: APNS_ID, body: undefined });
    const got = fake.received.at(-1)!;
    expect(got.deviceToken).toBe(DEVICE);
    expect(got.payload).toEqual({ aps: { alert: 'Hello' } });
    expect(got.headers).toMatchObject({ 'apns-topic': 'com.example.MyApp', 'apns-priority': '10' });
  });

  it('answers a new UUID as apns-id when the request has none', async () => {
    const headers = exampleHeaders();
    delete headers['apns-id'];
    const answer = await send(headers);
    expect(answer.status).toBe(200);
    expect(answer.apnsId).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it('refuses a missing, forged, foreign-key or hour-old provider token with 403', async () => {
    const headers = exampleHeaders();
    delete headers.authorization;
    expect((await send(headers)).body).toEqual({ reason: 'MissingProviderToken' });

    const otherKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const forged = await send(exampleHeaders(`bearer ${token(nowS(), otherKey)}`));
    expect(forged).toMatchObject({ status: 403, body: { reason: 'InvalidProviderToken' } });
    const wrongKid = await send(
      exampleHeaders(`bearer ${token(nowS(), fake.privateKey, 'ZZZ9999999')}`),
    );
    expect(wrongKid.body).toEqual({ reason: 'InvalidProviderToken' });
    expect((await send(exampleHeaders('bearer not-a-jwt'))).body).toEqual({
      reason: 'InvalidProviderToken',
    });

    const stale = await send(exampleHeaders(`bearer ${token(nowS() - 3601)}`));
    expect(stale).toMatchObject({ status: 403, body: { reason: 'ExpiredProviderToken' } });
    const fresh = await send(exampleHeaders(`bearer ${token(nowS() - 3500)}`));
    expect(fresh.status).toBe(200);
  });

  it('refuses a token refreshed on one connection within 20 minutes, not on a new one', async () => {
    const s = session();
    const jwt = token(nowS() - 600);
    const first = await post(
      s,
      `/3/device/${DEVICE}`,
      exampleHeaders(`bearer ${jwt}`),
      EXAMPLE_PAYLOAD,
    );
    expect(first.status).toBe(200);
    const again = await post(
      s,
      `/3/device/${DEVICE}`,
      exampleHeaders(`bearer ${jwt}`),
      EXAMPLE_PAYLOAD,
    );
    expect(again.status).toBe(200);
    const early = await post(
      s,
      `/3/device/${DEVICE}`,
      exampleHeaders(`bearer ${token(nowS())}`),
      EXAMPLE_PAYLOAD,
    );
    expect(early).toMatchObject({ status: 429, body: { reason: 'TooManyProviderTokenUpdates' } });
    const elsewhere = await send(exampleHeaders(`bearer ${token(nowS())}`));
    expect(elsewhere.status).toBe(200);
  });

  it('counts the distinct provider tokens it was shown', async () => {
    const before = fake.distinctProviderTokens;
    const jwt = token(nowS() - 5);
    const s = session();
    for (let i = 0; i < 3; i++) {
      await post(s, `/3/device/${DEVICE}`, exampleHeaders(`bearer ${jwt}`), EXAMPLE_PAYLOAD);
    }
    expect(fake.distinctProviderTokens).toBe(before + 1);
  });

  it('checks the topic', async () => {
    const headers = exampleHeaders();
    delete headers['apns-topic'];
    expect((await send(headers)).body).toEqual({ reason: 'MissingTopic' });
    const other = await send({ ...exampleHeaders(), 'apns-topic': 'com.example.Other' });
    expect(other).toMatchObject({ status: 400, body: { reason: 'TopicDisallowed' } });
  });

  it('checks the apns-* headers', async () => {
    const h = exampleHeaders();
    expect((await send({ ...h, 'apns-collapse-id': 'x'.repeat(65) })).body).toEqual({
      reason: 'BadCollapseId',
    });
    expect((await send({ ...h, 'apns-collapse-id': 'x'.repeat(64) })).status).toBe(200);
    expect((await send({ ...h, 'apns-priority': '7' })).body).toEqual({ reason: 'BadPriority' });
    expect((await send({ ...h, 'apns-expiration': 'soon' })).body).toEqual({
      reason: 'BadExpirationDate',
    });
    expect((await send({ ...h, 'apns-id': 'not-a-uuid' })).body).toEqual({
      reason: 'BadMessageId',
    });
    expect((await send({ ...h, 'apns-push-type': 'shout' })).body).toEqual({
      reason: 'InvalidPushType',
    });
  });

  it('answers device-token problems: malformed or flagged 400, unregistered 410 with timestamp', async () => {
    const short = await send(exampleHeaders(), EXAMPLE_PAYLOAD, 'abc123');
    expect(short).toMatchObject({ status: 400, body: { reason: 'BadDeviceToken' } });
    const flagged = 'a'.repeat(64);
    fake.markBad(flagged);
    expect((await send(exampleHeaders(), EXAMPLE_PAYLOAD, flagged)).body).toEqual({
      reason: 'BadDeviceToken',
    });
    const gone = 'b'.repeat(64);
    fake.unregister(gone, 1_700_000_000_123);
    const answer = await send(exampleHeaders(), EXAMPLE_PAYLOAD, gone);
    expect(answer).toEqual({
      status: 410,
      apnsId: APNS_ID,
      body: { reason: 'Unregistered', timestamp: 1_700_000_000_123 },
    });
  });

  it('checks the payload: 4 KB at most, a JSON dictionary with aps', async () => {
    const exact = JSON.stringify({ aps: { alert: 'x' }, pad: '' });
    const fill = 'p'.repeat(4096 - Buffer.byteLength(exact));
    const max = JSON.stringify({ aps: { alert: 'x' }, pad: fill });
    expect((await send(exampleHeaders(), max)).status).toBe(200);
    const over = await send(
      exampleHeaders(),
      JSON.stringify({ aps: { alert: 'x' }, pad: `${fill}p` }),
    );
    expect(over).toMatchObject({ status: 413, body: { reason: 'PayloadTooLarge' } });
    expect((await send(exampleHeaders(), '')).body).toEqual({ reason: 'PayloadEmpty' });
    expect((await send(exampleHeaders(), '{"data":1}')).body).toEqual({ reason: 'PayloadEmpty' });
  });

  it('refuses other methods and paths', async () => {
    const get = await post(session(), `/3/device/${DEVICE}`, exampleHeaders(), '', 'GET');
    expect(get).toMatchObject({ status: 405, body: { reason: 'MethodNotAllowed' } });
    const path = await post(session(), '/2/device/x', exampleHeaders(), EXAMPLE_PAYLOAD);
    expect(path).toMatchObject({ status: 404, body: { reason: 'BadPath' } });
  });

  it('answers the forced statuses to the next requests, then recovers', async () => {
    fake.failNext(2, 429);
    fake.failNext(1, 503);
    const h = exampleHeaders();
    expect((await send(h)).body).toEqual({ reason: 'TooManyRequests' });
    expect((await send(h)).status).toBe(429);
    expect(await send(h)).toMatchObject({ status: 503, body: { reason: 'ServiceUnavailable' } });
    expect((await send(h)).status).toBe(200);
  });

  it('goes away during an outage and comes back on the same port', async () => {
    const url = fake.url;
    const s = session();
    expect((await post(s, `/3/device/${DEVICE}`, exampleHeaders(), EXAMPLE_PAYLOAD)).status).toBe(
      200,
    );
    const closed = new Promise((resolve) => s.once('close', resolve));
    await fake.stop();
    await closed;
    await expect(send(exampleHeaders())).rejects.toThrow();
    await fake.resume();
    expect(fake.url).toBe(url);
    expect((await send(exampleHeaders())).status).toBe(200);
  });
});
