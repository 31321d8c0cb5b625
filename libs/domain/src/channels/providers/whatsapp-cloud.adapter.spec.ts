// The WhatsApp Cloud API adapter against the loopback Graph API fake (real HTTP through
// ProviderHttp) and against Meta's published examples: the dashboard's sample message
// notification, the status and error notification references, the verification request.
import { createHmac } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WhatsappFake } from '../../../../../test/support/providers/whatsapp-fake';
import { loadConfig } from '../../config/app-config';
import { DnsResolver } from '../../dns/resolver';
import type { ProviderAccount, ProviderCallback, ProviderMessage } from '../provider-adapter';
import { ProviderHttp } from '../provider-http';
import {
  WHATSAPP_DEFAULT_API_BASE_URL,
  WHATSAPP_GRAPH_VERSION,
  WhatsappCloudAdapter,
} from './whatsapp-cloud.adapter';
import { asOrgId } from '../../common/org-id';

describe(WhatsappCloudAdapter.name, () => {
  let fake: WhatsappFake;
  let http: ProviderHttp;
  let adapter: WhatsappCloudAdapter;
  let hook: Server;
  let hookUrl: string;
  let last: { headers: IncomingHttpHeaders; rawBody: Buffer } | undefined;
  const verifyToken = 'meatyhamhock';

  const account = (over: Partial<ProviderAccount> = {}): ProviderAccount => ({
    id: 'prov-1',
    organizationId: asOrgId('org-1'),
    channel: 'whatsapp',
    provider: 'whatsapp-cloud',
    settings: {
      phoneNumberId: fake.phoneNumberId,
      businessAccountId: fake.businessAccountId,
      verifyToken,
      apiBaseUrl: fake.baseUrl,
    },
    credentials: { accessToken: fake.accessToken, appSecret: fake.appSecret },
    ...over,
  });

  beforeAll(async () => {
    http = new ProviderHttp(
      {
        ...loadConfig({ ENCRYPTION_KEY: Buffer.alloc(32).toString('base64') }),
        webhookAllowPrivateTargets: true,
      },
      new DnsResolver({ dnsServers: [] }),
    );
    adapter = new WhatsappCloudAdapter(http);
    // The callbacks route as the platform serves it: the handshake on GET, the body kept on POST.
    hook = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (req.method === 'GET') {
        const challenge = adapter.handshake(account(), url.searchParams);
        res.writeHead(challenge === null ? 403 : 200).end(challenge ?? '');
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        last = { headers: req.headers, rawBody: Buffer.concat(chunks) };
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/channels/callbacks/prov-1`;
    fake = await WhatsappFake.start({ callbackUrl: hookUrl });
  });
  afterAll(async () => {
    await http.onModuleDestroy();
    await fake.stop();
    hook.closeAllConnections();
    await new Promise((r) => hook.close(r));
  });

  const customer = '+16505551234';
  const message = (content: ProviderMessage['content'], to = customer): ProviderMessage => ({
    reference: 'job-1',
    to,
    content,
    statusCallbackUrl: hookUrl,
  });
  const callbackFromHook = (): ProviderCallback => ({
    url: hookUrl,
    method: 'POST',
    headers: Object.fromEntries(
      Object.entries(last!.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]),
    ),
    rawBody: last!.rawBody,
  });
  const posted = (body: unknown): ProviderCallback => ({
    url: hookUrl,
    method: 'POST',
    headers: {},
    rawBody: Buffer.from(JSON.stringify(body)),
  });
  const sentId = async (to = customer) => {
    const outcome = await adapter.send(
      account(),
      message({ template: { name: 'hello_world', language: 'en_US' } }, to),
    );
    return (outcome as { providerMessageId: string }).providerMessageId;
  };

  it('pins a Graph version and defaults to the public Graph API', () => {
    expect(WHATSAPP_GRAPH_VERSION).toMatch(/^v\d+\.\d$/);
    expect(WHATSAPP_DEFAULT_API_BASE_URL).toBe('https://graph.facebook.com');
  });

  describe('send', () => {
    it("a text inside the customer's window → accepted with the wamid; the JSON is what Meta takes", async () => {
      fake.openWindow(customer);
      const outcome = await adapter.send(account(), message({ text: 'Your order shipped' }));
      expect(outcome).toEqual({
        kind: 'accepted',
        providerMessageId: expect.stringMatching(/^wamid\./),
        status: 'sent',
      });
      const got = fake.messages.at(-1)!;
      expect(got.id).toBe((outcome as { providerMessageId: string }).providerMessageId);
      expect(got.body).toEqual({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: customer,
        biz_opaque_callback_data: 'job-1',
        type: 'text',
        text: { preview_url: false, body: 'Your order shipped' },
      });
      expect(fake.requests.at(-1)!.path).toBe(
        `/${WHATSAPP_GRAPH_VERSION}/${fake.phoneNumberId}/messages`,
      );
    });

    it('a template → type template with its language and body parameters, in order', async () => {
      fake.addTemplate({ name: 'order_update', language: 'en_GB', bodyParameters: 2 });
      const outcome = await adapter.send(
        account(),
        message({
          template: { name: 'order_update', language: 'en_GB', parameters: ['Ana', '#42'] },
        }),
      );
      expect(outcome).toMatchObject({ kind: 'accepted', status: 'sent' });
      expect(fake.messages.at(-1)!.body).toMatchObject({
        type: 'template',
        template: {
          name: 'order_update',
          language: { code: 'en_GB' },
          components: [
            {
              type: 'body',
              parameters: [
                { type: 'text', text: 'Ana' },
                { type: 'text', text: '#42' },
              ],
            },
          ],
        },
      });
    });

    it('a template without parameters sends no components; it goes outside the window', async () => {
      fake.closeWindow(customer);
      expect(await sentId()).toMatch(/^wamid\./);
      expect(fake.messages.at(-1)!.body.template).toEqual({
        name: 'hello_world',
        language: { code: 'en_US' },
      });
    });

    it('190 / 401 → unauthorized, without the token in the message', async () => {
      const token = 'EAA' + 'x'.repeat(60);
      const outcome = await adapter.send(
        account({ credentials: { accessToken: token, appSecret: fake.appSecret } }),
        message({ text: 'Hi' }),
      );
      expect(outcome).toEqual({
        kind: 'unauthorized',
        message: 'WhatsApp 190: Invalid OAuth access token - Cannot parse access token',
      });
      expect(JSON.stringify(outcome)).not.toContain(token);
    });

    it('missing access token or phone number id → unauthorized without a request', async () => {
      const before = fake.requests.length;
      const noToken = account({ credentials: { appSecret: fake.appSecret } });
      expect((await adapter.send(noToken, message({ text: 'Hi' }))).kind).toBe('unauthorized');
      const noNumber = account({ settings: { apiBaseUrl: fake.baseUrl } });
      expect((await adapter.send(noNumber, message({ text: 'Hi' }))).kind).toBe('unauthorized');
      expect(fake.requests.length).toBe(before);
    });

    it.each([
      ['429 / 130429 with Retry-After', 429, 3, 3000],
      ['429 / 130429 without: 1 s', 429, undefined, 1000],
      ['131056 pair rate limit: 6 s', 131056, undefined, 6000],
      ['80007 account rate limit: 60 s', 80007, undefined, 60_000],
      ['4 app rate limit: 60 s', 4, undefined, 60_000],
    ] as const)('%s → throttled', async (_, what, retryAfter, ms) => {
      fake.failNext(1, what, retryAfter);
      expect(
        await adapter.send(
          account(),
          message({ template: { name: 'hello_world', language: 'en_US' } }),
        ),
      ).toEqual({
        kind: 'throttled',
        retryAfterMs: ms,
      });
    });

    it('131048 spam rate limit (listed as 429) → rejected, not permanent, not throttled', async () => {
      fake.failNext(1, 131048);
      expect(await sentOutcome()).toMatchObject({
        kind: 'rejected',
        permanent: false,
        code: '131048',
      });
    });

    it.each([500, 503] as const)('%i → unavailable', async (status) => {
      fake.failNext(1, status);
      expect(await sentOutcome()).toMatchObject({ kind: 'unavailable' });
    });

    it('no answer (the API down) → unavailable, without a secret in the message', async () => {
      await fake.stop();
      try {
        const outcome = await sentOutcome();
        expect(outcome).toMatchObject({ kind: 'unavailable' });
        expect(JSON.stringify(outcome)).not.toContain(fake.accessToken);
      } finally {
        await fake.start();
      }
    });

    it('131026 (a number that blocked us or is not on WhatsApp) → rejected permanent, blocked', async () => {
      const number = '+16505550000';
      fake.setNumberState(number, 'blocked');
      expect(await sentOutcome(number)).toEqual({
        kind: 'rejected',
        permanent: true,
        addressEffect: 'blocked',
        code: '131026',
        message: 'WhatsApp 131026: (#131026) Message Undeliverable.',
      });
    });

    it('131047 (free text, window closed) → rejected permanent outside_window, the address kept', async () => {
      const number = '+447700900123';
      fake.closeWindow(number);
      const outcome = await adapter.send(account(), message({ text: 'Hi again' }, number));
      expect(outcome).toMatchObject({ kind: 'rejected', permanent: true, code: 'outside_window' });
      expect(outcome).not.toHaveProperty('addressEffect');
    });

    it('a number that is not E.164 → rejected permanent, invalid, without a request', async () => {
      const before = fake.requests.length;
      expect(await adapter.send(account(), message({ text: 'Hi' }, '0612345678'))).toMatchObject({
        kind: 'rejected',
        permanent: true,
        addressEffect: 'invalid',
      });
      expect(fake.requests.length).toBe(before);
    });

    it('100 naming the `to` parameter → rejected permanent, invalid', async () => {
      fake.failNext(1, 100, undefined, 'Param to is not valid');
      expect(await sentOutcome()).toMatchObject({
        kind: 'rejected',
        permanent: true,
        addressEffect: 'invalid',
        code: '100',
      });
    });

    it.each([
      ['132001 template missing', { name: 'no_such', language: 'en_US' }, '132001'],
      [
        '132000 parameter count',
        { name: 'hello_world', language: 'en_US', parameters: ['x'] },
        '132000',
      ],
    ])(
      '%s → rejected, not permanent (our request failed, no bounce)',
      async (_, template, code) => {
        const outcome = await adapter.send(account(), message({ template }));
        expect(outcome).toMatchObject({ kind: 'rejected', permanent: false, code });
        expect(outcome).not.toHaveProperty('addressEffect');
      },
    );

    it('content with neither text nor template → rejected without a request', async () => {
      const before = fake.requests.length;
      expect(await adapter.send(account(), message({}))).toMatchObject({
        kind: 'rejected',
        permanent: false,
        code: 'invalid_content',
      });
      expect(fake.requests.length).toBe(before);
    });

    async function sentOutcome(to = customer) {
      return adapter.send(
        account(),
        message({ template: { name: 'hello_world', language: 'en_US' } }, to),
      );
    }
  });

  describe('verifySignature', () => {
    it("accepts the fake's signed notification and refuses forgeries", async () => {
      await fake.status(await sentId(), 'delivered');
      const genuine = callbackFromHook();
      expect(adapter.verifySignature(account(), genuine)).toBe(true);

      const tampered = Buffer.from(genuine.rawBody.toString().replace('delivered', 'read'));
      expect(adapter.verifySignature(account(), { ...genuine, rawBody: tampered })).toBe(false);
      const sig = (v: string) => ({ ...genuine, headers: { 'x-hub-signature-256': v } });
      expect(adapter.verifySignature(account(), sig('sha256=' + '0'.repeat(64)))).toBe(false);
      expect(adapter.verifySignature(account(), sig('sha256=zz'))).toBe(false);
      expect(adapter.verifySignature(account(), sig(genuine.headers['x-hub-signature']!))).toBe(
        false,
      );
      expect(adapter.verifySignature(account(), { ...genuine, headers: {} })).toBe(false);
      expect(adapter.verifySignature(account(), { ...genuine, method: 'GET' })).toBe(false);
      const otherSecret = account({
        credentials: { accessToken: fake.accessToken, appSecret: 'a'.repeat(32) },
      });
      expect(adapter.verifySignature(otherSecret, genuine)).toBe(false);
    });

    it('checks the raw body as sent: escaped unicode, signed as posted', async () => {
      await fake.inbound('+16315551181', 'Grüße');
      const callback = callbackFromHook();
      expect(callback.rawBody.toString()).toContain('Gr\\u00fc\\u00dfe');
      expect(adapter.verifySignature(account(), callback)).toBe(true);
      const reencoded = Buffer.from(JSON.stringify(JSON.parse(callback.rawBody.toString())));
      expect(adapter.verifySignature(account(), { ...callback, rawBody: reencoded })).toBe(false);
    });

    it('matches the published X-Hub-Signature-256 vector (HMAC-SHA256, lower-case hex)', () => {
      const callback: ProviderCallback = {
        url: hookUrl,
        method: 'POST',
        headers: {
          'x-hub-signature-256':
            'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
        },
        rawBody: Buffer.from('Hello, World!'),
      };
      const acc = account({
        credentials: { accessToken: 'EAA', appSecret: "It's a Secret to Everybody" },
      });
      expect(adapter.verifySignature(acc, callback)).toBe(true);
    });
  });

  describe('handshake', () => {
    it("echoes the challenge of Meta's example verification request", () => {
      const query = new URLSearchParams(
        'hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=meatyhamhock',
      );
      expect(adapter.handshake(account(), query)).toBe('1158201444');
    });

    it.each([
      ['a wrong verify token', 'hub.mode=subscribe&hub.challenge=1&hub.verify_token=meatyhamhocks'],
      ['another mode', 'hub.mode=unsubscribe&hub.challenge=1&hub.verify_token=meatyhamhock'],
      ['no verify token', 'hub.mode=subscribe&hub.challenge=1'],
      ['no challenge', 'hub.mode=subscribe&hub.verify_token=meatyhamhock'],
      [
        'a challenge that is not a token',
        'hub.mode=subscribe&hub.challenge=%3Cb%3E&hub.verify_token=meatyhamhock',
      ],
    ])('refuses %s', (_, query) => {
      expect(adapter.handshake(account(), new URLSearchParams(query))).toBeNull();
    });

    it('refuses every request when the account has no verify token', () => {
      const acc = account({ settings: { phoneNumberId: fake.phoneNumberId } });
      const query = new URLSearchParams('hub.mode=subscribe&hub.challenge=1&hub.verify_token=');
      expect(adapter.handshake(acc, query)).toBeNull();
    });

    it("passes the fake's verification of the callback URL", async () => {
      expect(await fake.verifyCallback(verifyToken)).toMatchObject({ verified: true });
      expect(await fake.verifyCallback('not-ours')).toMatchObject({ verified: false, status: 403 });
    });
  });

  describe('parseStatus', () => {
    const statusOf = (status: string, errors?: unknown[]) =>
      adapter.parseStatus(
        posted({
          object: 'whatsapp_business_account',
          entry: [
            {
              id: '102290129340398',
              changes: [
                {
                  value: {
                    messaging_product: 'whatsapp',
                    metadata: {
                      display_phone_number: '15550783881',
                      phone_number_id: '106540352242922',
                    },
                    statuses: [
                      {
                        id: 'wamid.X',
                        status,
                        timestamp: '1750857384',
                        recipient_id: '16505551234',
                        ...(errors ? { errors } : {}),
                      },
                    ],
                  },
                  field: 'messages',
                },
              ],
            },
          ],
        }),
      );

    it.each([
      ['sent', undefined, 'sent'],
      ['delivered', undefined, 'delivered'],
      ['read', undefined, 'read'],
      ['played', undefined, 'read'],
      ['failed', 131026, 'bounced'],
      ['failed', 131047, 'failed'],
      ['failed', 131049, 'failed'],
      ['failed', 131050, 'failed'],
      ['failed', 130429, 'failed'],
      ['failed', 131014, 'failed'],
      ['failed', undefined, 'failed'],
    ] as const)('%s (error %s) → %s', (metaStatus, code, ours) => {
      const errors = code ? [{ code, title: 'Title' }] : undefined;
      const [update] = statusOf(metaStatus, errors);
      expect(update).toMatchObject({
        providerMessageId: 'wamid.X',
        status: ours,
        occurredAt: new Date(1750857384 * 1000),
      });
      if (code)
        expect(update).toMatchObject({
          code: String(code),
          description: `WhatsApp failed, error ${code}: Title`,
        });
      if (ours === 'bounced') expect(update.addressEffect).toBe('blocked');
      else expect(update).not.toHaveProperty('addressEffect');
    });

    it.each(['deleted', 'warning', 'something_new'])('ignores %s', (metaStatus) => {
      expect(statusOf(metaStatus)).toEqual([]);
    });

    it("reads Meta's status notification reference (sent, with conversation and pricing)", () => {
      const updates = adapter.parseStatus(
        posted({
          object: 'whatsapp_business_account',
          entry: [
            {
              id: '102290129340398',
              changes: [
                {
                  value: {
                    messaging_product: 'whatsapp',
                    metadata: {
                      display_phone_number: '15550783881',
                      phone_number_id: '106540352242922',
                    },
                    statuses: [
                      {
                        id: 'wamid.HBgLMTY1MDUwNzY1MjAVAgARGBI5QTNDQTVCM0Q0Q0Q2RTY3RTcA',
                        status: 'sent',
                        timestamp: '1750263773',
                        recipient_id: '16505551234',
                        conversation: {
                          id: 'a75d17ad06104c51166f948319b03c6a',
                          expiration_timestamp: '1750350180',
                          origin: { type: 'marketing' },
                        },
                        pricing: {
                          billable: true,
                          pricing_model: 'PMP',
                          type: 'regular',
                          category: 'marketing',
                        },
                      },
                    ],
                  },
                  field: 'messages',
                },
              ],
            },
          ],
        }),
      );
      expect(updates).toEqual([
        {
          providerMessageId: 'wamid.HBgLMTY1MDUwNzY1MjAVAgARGBI5QTNDQTVCM0Q0Q0Q2RTY3RTcA',
          status: 'sent',
          occurredAt: new Date(1750263773 * 1000),
        },
      ]);
    });

    it("reads nothing from Meta's error notification reference (value.errors, no statuses)", () => {
      const callback = posted({
        object: 'whatsapp_business_account',
        entry: [
          {
            id: '102290129340398',
            changes: [
              {
                value: {
                  messaging_product: 'whatsapp',
                  metadata: {
                    display_phone_number: '15550783881',
                    phone_number_id: '106540352242922',
                  },
                  errors: [
                    {
                      code: 130429,
                      title: 'Rate limit hit',
                      message: 'Rate limit hit',
                      error_data: {
                        details:
                          'Message failed to send because there were too many messages sent from this phone number in a short period of time',
                      },
                      href: '/documentation/business-messaging/whatsapp/support/error-codes',
                    },
                  ],
                },
                field: 'messages',
              },
            ],
          },
        ],
      });
      expect(adapter.parseStatus(callback)).toEqual([]);
      expect(adapter.parseInbound(callback)).toEqual([]);
    });

    it("reads the fake's notifications: delivered, then a failure that bounces", async () => {
      const id = await sentId();
      await fake.status(id, 'delivered');
      expect(adapter.parseStatus(callbackFromHook())).toEqual([
        { providerMessageId: id, status: 'delivered', occurredAt: expect.any(Date) },
      ]);
      expect(adapter.parseInbound(callbackFromHook())).toEqual([]);
      await fake.status(id, 'failed', 131026);
      expect(adapter.parseStatus(callbackFromHook())).toEqual([
        {
          providerMessageId: id,
          status: 'bounced',
          addressEffect: 'blocked',
          code: '131026',
          description: 'WhatsApp failed, error 131026: Message Undeliverable.',
          occurredAt: expect.any(Date),
        },
      ]);
    });

    it('reads every status of every entry and change; nothing from another object or body', () => {
      const change = (id: string) => ({
        field: 'messages',
        value: { statuses: [{ id, status: 'read', timestamp: '1' }] },
      });
      const body = {
        object: 'whatsapp_business_account',
        entry: [
          { id: '1', changes: [change('a'), change('b')] },
          { id: '2', changes: [change('c')] },
        ],
      };
      expect(adapter.parseStatus(posted(body)).map((u) => u.providerMessageId)).toEqual([
        'a',
        'b',
        'c',
      ]);
      expect(adapter.parseStatus(posted({ ...body, object: 'page' }))).toEqual([]);
      expect(adapter.parseStatus({ ...posted(null), rawBody: Buffer.from('not json') })).toEqual(
        [],
      );
    });
  });

  describe('parseInbound', () => {
    it("reads Meta's sample message notification (the App Dashboard's test payload)", () => {
      const callback = posted({
        object: 'whatsapp_business_account',
        entry: [
          {
            id: '0',
            changes: [
              {
                field: 'messages',
                value: {
                  messaging_product: 'whatsapp',
                  metadata: { display_phone_number: '16505551111', phone_number_id: '123456123' },
                  contacts: [{ profile: { name: 'test user name' }, wa_id: '16315551181' }],
                  messages: [
                    {
                      from: '16315551181',
                      id: 'ABGGFlA5Fpa',
                      timestamp: '1504902988',
                      type: 'text',
                      text: { body: 'this is a text message' },
                    },
                  ],
                },
              },
            ],
          },
        ],
      });
      expect(adapter.parseInbound(callback)).toEqual([
        {
          kind: 'message',
          providerMessageId: 'ABGGFlA5Fpa',
          from: '+16315551181',
          to: '+16505551111',
          text: 'this is a text message',
        },
      ]);
      expect(adapter.parseStatus(callback)).toEqual([]);
    });

    it.each([
      ['text', ' STOP '],
      ['button', 'Stop promotions'],
      ['button_reply', 'Yes'],
      ['list_reply', 'Tuesday'],
    ] as const)("reads the fake's %s message, signed", async (kind, text) => {
      const { id } = await fake.inbound('+16315551181', text, kind);
      const callback = callbackFromHook();
      expect(adapter.verifySignature(account(), callback)).toBe(true);
      expect(adapter.parseStatus(callback)).toEqual([]);
      expect(adapter.parseInbound(callback)).toEqual([
        { kind: 'message', providerMessageId: id, from: '+16315551181', to: '+15550783881', text },
      ]);
    });

    it('gives a media message its caption, and an empty text to one without', () => {
      const msg = (m: Record<string, unknown>) =>
        posted({
          object: 'whatsapp_business_account',
          entry: [
            {
              id: '1',
              changes: [
                {
                  field: 'messages',
                  value: {
                    metadata: { display_phone_number: '15550783881' },
                    messages: [{ from: '16315551181', id: 'wamid.M', ...m }],
                  },
                },
              ],
            },
          ],
        });
      expect(
        adapter.parseInbound(msg({ type: 'image', image: { caption: 'Receipt', id: '1' } }))[0],
      ).toMatchObject({ text: 'Receipt' });
      expect(adapter.parseInbound(msg({ type: 'sticker', sticker: { id: '1' } }))[0]).toMatchObject(
        { text: '' },
      );
    });
  });

  it('signs as the fake does (HMAC-SHA256 of the body under the app secret)', () => {
    const body = Buffer.from('{"object":"whatsapp_business_account","entry":[]}');
    const header = 'sha256=' + createHmac('sha256', fake.appSecret).update(body).digest('hex');
    expect(
      adapter.verifySignature(account(), {
        url: hookUrl,
        method: 'POST',
        headers: { 'x-hub-signature-256': header.toUpperCase().replace('SHA256=', 'sha256=') },
        rawBody: body,
      }),
    ).toBe(true);
  });
});
