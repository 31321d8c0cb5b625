// The Twilio fake against Twilio's documentation: its signature reproduces the published example,
// its Messages resource answers and refuses as the API does, its webhooks are what Twilio posts.
import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TWILIO_MAGIC, TwilioFake, twilioSignature } from './twilio-fake';

describe(TwilioFake.name, () => {
  let fake: TwilioFake;
  let hook: Server;
  let hookUrl: string;
  const received: { headers: IncomingMessage['headers']; body: string; url: string }[] = [];

  beforeAll(async () => {
    fake = await TwilioFake.start();
    hook = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
          url: req.url ?? '',
        });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/channels/callbacks/p1?x=1`;
  });
  afterAll(async () => {
    await fake.stop();
    hook.closeAllConnections();
    await new Promise((r) => hook.close(r));
  });

  const auth = (user = fake.accountSid, pass = fake.authToken) =>
    'Basic ' + Buffer.from(`${user}:${pass}`).toString('base64');
  const send = (params: Record<string, string | string[]>, authorization = auth()) => {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) for (const x of [v].flat()) form.append(k, x);
    return fetch(`${fake.baseUrl}/2010-04-01/Accounts/${fake.accountSid}/Messages.json`, {
      method: 'POST',
      headers: {
        Authorization: authorization,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: form.toString(),
    });
  };
  const ok = { To: '+14155550100', From: TWILIO_MAGIC.validFrom, Body: 'Hello' };

  describe('signature', () => {
    it("reproduces Twilio's published example (Webhooks security, auth token 12345)", () => {
      const params = {
        CallSid: 'CA1234567890ABCDE',
        Caller: '+14158675310',
        Digits: '1234',
        From: '+14158675310',
        To: '+18005551212',
      };
      expect(twilioSignature('12345', 'https://mycompany.com/myapp.php?foo=1&bar=2', params)).toBe(
        'GvWf1cFY/Q7PnoempGyD5oXAezc=',
      );
    });
  });

  describe('POST Messages.json', () => {
    it('creates a queued message: 201 with the Message resource', async () => {
      const res = await send({ ...ok, StatusCallback: hookUrl });
      expect(res.status).toBe(201);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toMatchObject({
        account_sid: fake.accountSid,
        api_version: '2010-04-01',
        to: ok.To,
        from: ok.From,
        body: 'Hello',
        status: 'queued',
        num_segments: '1',
        direction: 'outbound-api',
        error_code: null,
        error_message: null,
        messaging_service_sid: null,
      });
      expect(body.sid).toMatch(/^SM[0-9a-f]{32}$/);
      expect(body.date_created).toMatch(
        /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} \+0000$/,
      );
      expect(fake.message(body.sid as string)?.statusCallback).toBe(hookUrl);
    });

    it('counts segments with the GSM-7 / UCS-2 rules', async () => {
      const gsm = (await (await send({ ...ok, Body: 'a'.repeat(161) })).json()) as Record<
        string,
        unknown
      >;
      const ucs = (await (await send({ ...ok, Body: 'ж'.repeat(71) })).json()) as Record<
        string,
        unknown
      >;
      expect([gsm.num_segments, ucs.num_segments]).toEqual(['2', '2']);
    });

    it('through a Messaging Service: accepted, no sender yet, num_segments 0', async () => {
      const service = 'MG' + 'a'.repeat(32);
      const res = await send({ To: ok.To, MessagingServiceSid: service, Body: 'Hi' });
      expect(res.status).toBe(201);
      expect(await res.json()).toMatchObject({
        status: 'accepted',
        from: null,
        messaging_service_sid: service,
        num_segments: '0',
      });
    });

    it.each([
      ['no credentials', ''],
      ['a wrong auth token', 'wrong'],
    ])('refuses %s: 401 with code 20003', async (_, pass) => {
      const res = await send(ok, pass ? auth(fake.accountSid, pass) : '');
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({
        code: 20003,
        message: 'Authenticate',
        more_info: 'https://www.twilio.com/docs/errors/20003',
        status: 401,
      });
    });

    it.each([
      ['To missing', { From: ok.From, Body: 'x' }, 21604],
      ['To not E.164', { ...ok, To: '0612345678' }, 21211],
      ['the invalid-To magic number', { ...ok, To: TWILIO_MAGIC.invalidTo }, 21211],
      ['From and MessagingServiceSid missing', { To: ok.To, Body: 'x' }, 21603],
      ['the invalid-From magic number', { ...ok, From: TWILIO_MAGIC.invalidFrom }, 21212],
      ['an unowned From', { ...ok, From: TWILIO_MAGIC.unownedFrom }, 21606],
      ['Body and MediaUrl missing', { To: ok.To, From: ok.From }, 21602],
      ['a Body over 1600 characters', { ...ok, Body: 'a'.repeat(1601) }, 21617],
      ['an unroutable To', { ...ok, To: TWILIO_MAGIC.unroutableTo }, 21612],
      ['a To outside the enabled regions', { ...ok, To: TWILIO_MAGIC.noRegionPermissionTo }, 21408],
      ['a To that is not a mobile number', { ...ok, To: TWILIO_MAGIC.notMobileTo }, 21614],
      ['an unsubscribed To', { ...ok, To: TWILIO_MAGIC.unsubscribedTo }, 21610],
    ])('refuses %s: 400 with code %i', async (_, params, code) => {
      const before = fake.messages.length;
      const res = await send(params as Record<string, string>);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        code,
        status: 400,
        more_info: `https://www.twilio.com/docs/errors/${code}`,
      });
      expect(fake.messages.length).toBe(before);
    });

    it('reads nothing from a JSON body (Twilio takes form encoding only): 21604', async () => {
      const res = await fetch(
        `${fake.baseUrl}/2010-04-01/Accounts/${fake.accountSid}/Messages.json`,
        {
          method: 'POST',
          headers: { Authorization: auth(), 'Content-Type': 'application/json' },
          body: JSON.stringify(ok),
        },
      );
      expect(res.status).toBe(400);
      expect(((await res.json()) as { code: number }).code).toBe(21604);
    });

    it('accepts MMS: MediaUrl without Body', async () => {
      const res = await send({ To: ok.To, From: ok.From, MediaUrl: ['https://example.com/a.png'] });
      expect(res.status).toBe(201);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body.sid).toMatch(/^MM[0-9a-f]{32}$/);
      expect(body.num_media).toBe('1');
    });
  });

  describe('test controls', () => {
    it('answers the next requests 429 with Retry-After, then 503 and 500, then normally', async () => {
      fake.failNext(1, 429, 7);
      fake.failNext(1, 503);
      fake.failNext(1, 500);
      const r429 = await send(ok);
      expect(r429.status).toBe(429);
      expect(r429.headers.get('retry-after')).toBe('7');
      expect(await r429.json()).toMatchObject({ code: 20429, status: 429 });
      expect((await send(ok)).status).toBe(503);
      expect((await send(ok)).status).toBe(500);
      expect((await send(ok)).status).toBe(201);
    });

    it('stop() refuses connections; start() serves again on the same URL', async () => {
      const url = fake.baseUrl;
      await fake.stop();
      await expect(send(ok)).rejects.toThrow();
      await fake.start();
      expect(fake.baseUrl).toBe(url);
      expect((await send(ok)).status).toBe(201);
    });

    it("deliver() posts Twilio's status callback, form-encoded and signed over the full URL", async () => {
      const created = (await (await send({ ...ok, StatusCallback: hookUrl })).json()) as {
        sid: string;
      };
      const result = await fake.deliver(created.sid, 'undelivered', 30005);
      expect(result.status).toBe(204);
      const got = received.at(-1)!;
      expect(got.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(got.url).toBe('/channels/callbacks/p1?x=1');
      const params = Object.fromEntries(new URLSearchParams(got.body));
      expect(params).toMatchObject({
        MessageSid: created.sid,
        SmsSid: created.sid,
        AccountSid: fake.accountSid,
        From: ok.From,
        To: ok.To,
        MessageStatus: 'undelivered',
        SmsStatus: 'undelivered',
        ErrorCode: '30005',
        ApiVersion: '2010-04-01',
      });
      expect(params.RawDlrDoneDate).toMatch(/^\d{10}$/);
      expect(got.headers['x-twilio-signature']).toBe(
        twilioSignature(fake.authToken, hookUrl, params),
      );
      expect(fake.message(created.sid)).toMatchObject({ status: 'undelivered', errorCode: 30005 });
    });

    it('deliver() sends no ErrorCode for a status that is not a failure', async () => {
      const created = (await (await send({ ...ok, StatusCallback: hookUrl })).json()) as {
        sid: string;
      };
      await fake.deliver(created.sid, 'sent');
      const params = Object.fromEntries(new URLSearchParams(received.at(-1)!.body));
      expect(params.MessageStatus).toBe('sent');
      expect(params).not.toHaveProperty('ErrorCode');
    });

    it('inbound() posts the incoming-message webhook, signed; STOP opts out until START', async () => {
      const from = '+14155550199';
      const result = await fake.inbound(from, ok.From, '  stop ', hookUrl);
      expect(result.status).toBe(204);
      const got = received.at(-1)!;
      const params = Object.fromEntries(new URLSearchParams(got.body));
      expect(params).toMatchObject({
        From: from,
        To: ok.From,
        Body: '  stop ',
        NumSegments: '1',
        NumMedia: '0',
        SmsStatus: 'received',
        AccountSid: fake.accountSid,
        ApiVersion: '2010-04-01',
      });
      expect(params.MessageSid).toMatch(/^SM[0-9a-f]{32}$/);
      expect(params).not.toHaveProperty('MessageStatus');
      expect(got.headers['x-twilio-signature']).toBe(
        twilioSignature(fake.authToken, hookUrl, params),
      );

      const refused = await send({ ...ok, To: from });
      expect(((await refused.json()) as { code: number }).code).toBe(21610);
      await fake.inbound(from, ok.From, 'START', hookUrl);
      expect((await send({ ...ok, To: from })).status).toBe(201);
    });

    it('lists the messages it accepted', async () => {
      const res = await fetch(
        `${fake.baseUrl}/2010-04-01/Accounts/${fake.accountSid}/Messages.json`,
        {
          headers: { Authorization: auth() },
        },
      );
      const page = (await res.json()) as { messages: { sid: string }[] };
      expect(page.messages.map((m) => m.sid).sort()).toEqual(
        fake.messages.map((m) => m.sid).sort(),
      );
    });
  });
});
