// The Telegram adapter against the loopback Bot API fake (real HTTP through ProviderHttp), its
// webhook registration and the Updates the fake posts, and the example Updates Telegram publishes.
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TelegramFake } from '../../../../../test/support/providers/telegram-fake';
import { loadConfig } from '../../config/app-config';
import { DnsResolver } from '../../dns/resolver';
import type { ProviderAccount, ProviderCallback, ProviderMessage } from '../provider-adapter';
import { ProviderHttp, ProviderUnreachableError } from '../provider-http';
import {
  TelegramBotAdapter,
  telegramDeepLink,
  telegramStartPayload,
  telegramWebhookSecret,
} from './telegram-bot.adapter';
import { asOrgId } from '../../common/org-id';

describe(TelegramBotAdapter.name, () => {
  let fake: TelegramFake;
  let clock: number;
  let http: ProviderHttp;
  let adapter: TelegramBotAdapter;
  let hook: Server;
  let hookUrl: string;
  let last: { headers: IncomingHttpHeaders; rawBody: Buffer } | undefined;

  beforeAll(async () => {
    clock = Date.UTC(2030, 0, 1);
    fake = await TelegramFake.start({ localMode: true, now: () => clock });
    http = new ProviderHttp(
      {
        ...loadConfig({ ENCRYPTION_KEY: Buffer.alloc(32).toString('base64') }),
        webhookAllowPrivateTargets: true,
      },
      new DnsResolver({ dnsServers: [] }),
    );
    adapter = new TelegramBotAdapter(http);
    hook = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        last = { headers: req.headers, rawBody: Buffer.concat(chunks) };
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/channels/callbacks/prov-1`;
  });
  beforeEach(() => {
    clock += 5000; // past the fake's flood-control window of the test before
  });
  afterAll(async () => {
    await http.onModuleDestroy();
    await fake.stop();
    hook.closeAllConnections();
    await new Promise((r) => hook.close(r));
  });

  const account = (over: Partial<ProviderAccount> = {}): ProviderAccount => ({
    id: 'prov-1',
    organizationId: asOrgId('org-1'),
    channel: 'telegram',
    provider: 'telegram-bot',
    settings: { botUsername: fake.botUsername, apiBaseUrl: fake.baseUrl },
    credentials: { botToken: fake.botToken },
    ...over,
  });
  const message = (
    to: string | number,
    text = 'Hello',
    parseMode?: 'HTML' | 'MarkdownV2',
  ): ProviderMessage => ({
    reference: 'job-1',
    to: String(to),
    content: parseMode ? { text, parseMode } : { text },
    statusCallbackUrl: hookUrl,
  });
  const newChat = async () => (await fake.openDeepLink('c1')).chatId;
  const callbackFromHook = (): ProviderCallback => ({
    url: hookUrl,
    method: 'POST',
    headers: Object.fromEntries(
      Object.entries(last!.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]),
    ),
    rawBody: last!.rawBody,
  });
  const noToken = (outcome: unknown) => {
    const text = JSON.stringify(outcome);
    expect(text).not.toContain(fake.botToken);
    expect(text).not.toContain(fake.botToken.split(':')[1]);
  };

  describe('send', () => {
    it('sendMessage → accepted, delivered, id `<chat>:<message_id>`; the JSON Telegram takes', async () => {
      const chatId = await newChat();
      const outcome = await adapter.send(account(), message(chatId, '<b>Hi</b> there', 'HTML'));
      expect(outcome).toEqual({
        kind: 'accepted',
        providerMessageId: `${chatId}:2`,
        status: 'delivered',
      });
      const sent = fake.messages.at(-1)!;
      expect(sent.params).toEqual({
        chat_id: String(chatId),
        text: '<b>Hi</b> there',
        parse_mode: 'HTML',
      });
      expect(sent.text).toBe('Hi there');
      expect(fake.requests.at(-1)).toMatchObject({ contentType: 'application/json' });
    });

    it('plain text goes without parse_mode; a group is reached by its negative id', async () => {
      const group = fake.addGroup();
      const outcome = await adapter.send(account(), message(group.id, 'a_b.c'));
      expect(outcome).toEqual({
        kind: 'accepted',
        providerMessageId: `${group.id}:1`,
        status: 'delivered',
      });
      expect(fake.messages.at(-1)!.params).toEqual({ chat_id: String(group.id), text: 'a_b.c' });
    });

    it('the API base defaults to api.telegram.org', async () => {
      const requests: string[] = [];
      const spy = {
        request: (req: { url: string }) => {
          requests.push(req.url);
          return Promise.resolve({ status: 200, headers: {}, body: Buffer.from('{"ok":true}') });
        },
      } as unknown as ProviderHttp;
      await new TelegramBotAdapter(spy).send(account({ settings: {} }), message(5));
      expect(requests).toEqual([`https://api.telegram.org/bot${fake.botToken}/sendMessage`]);
    });

    it('401 → unauthorized, without the token in the message', async () => {
      const token = `${fake.botId}:AA${'x'.repeat(33)}`;
      const outcome = await adapter.send(
        account({ credentials: { botToken: token } }),
        message(await newChat()),
      );
      expect(outcome).toEqual({ kind: 'unauthorized', message: 'Telegram 401: Unauthorized' });
      expect(JSON.stringify(outcome)).not.toContain(token);
    });

    it('no token → unauthorized without a request; a chat id that is no number → invalid', async () => {
      const before = fake.requests.length;
      expect(await adapter.send(account({ credentials: {} }), message(1))).toMatchObject({
        kind: 'unauthorized',
      });
      expect(await adapter.send(account(), message('@channel'))).toMatchObject({
        kind: 'rejected',
        permanent: true,
        addressEffect: 'invalid',
      });
      expect(fake.requests.length).toBe(before);
    });

    it("429 → throttled after parameters.retry_after's seconds (flood control and failNext)", async () => {
      const chatId = await newChat();
      expect(await adapter.send(account(), message(chatId))).toMatchObject({ kind: 'accepted' });
      expect(await adapter.send(account(), message(chatId))).toEqual({
        kind: 'throttled',
        retryAfterMs: 1000,
      });
      fake.failNext(1, 429, 7);
      expect(await adapter.send(account(), message(chatId))).toEqual({
        kind: 'throttled',
        retryAfterMs: 7000,
      });
    });

    it('403 bot blocked → rejected, permanent, blocked', async () => {
      const chatId = await newChat();
      await fake.block(chatId);
      expect(await adapter.send(account(), message(chatId))).toEqual({
        kind: 'rejected',
        permanent: true,
        addressEffect: 'blocked',
        code: 'blocked',
        message: 'Telegram 403: Forbidden: bot was blocked by the user',
      });
    });

    it('400 chat not found → rejected, permanent, invalid', async () => {
      expect(await adapter.send(account(), message(424242))).toEqual({
        kind: 'rejected',
        permanent: true,
        addressEffect: 'invalid',
        code: 'chat_not_found',
        message: 'Telegram 400: Bad Request: chat not found',
      });
    });

    it.each([
      ['HTML Telegram cannot parse', '<div>x</div>', 'HTML', 'cant_parse_entities'],
      ['MarkdownV2 with a reserved character', 'v1.0', 'MarkdownV2', 'cant_parse_entities'],
      ['a text too long', 'a'.repeat(4097), undefined, 'bad_request'],
    ] as const)(
      '400 for %s → rejected, not permanent (our content)',
      async (_, text, mode, code) => {
        const outcome = await adapter.send(account(), message(await newChat(), text, mode));
        expect(outcome).toMatchObject({ kind: 'rejected', permanent: false, code });
        expect(outcome).not.toHaveProperty('addressEffect');
      },
    );

    it.each([500, 502] as const)('%i → unavailable', async (status) => {
      fake.failNext(1, status);
      const outcome = await adapter.send(account(), message(await newChat()));
      expect(outcome).toMatchObject({ kind: 'unavailable' });
      noToken(outcome);
    });

    it('no answer (the API down) → unavailable, without the token', async () => {
      const chatId = await newChat();
      await fake.stop();
      try {
        const outcome = await adapter.send(account(), message(chatId));
        expect(outcome).toMatchObject({ kind: 'unavailable' });
        noToken(outcome);
      } finally {
        await fake.start();
      }
    });

    it("scrubs the token from a provider's text that quotes the path", async () => {
      const echo = createServer((req, res) => {
        res.writeHead(400, { 'Content-Type': 'application/json' });
        res.end(
          JSON.stringify({
            ok: false,
            error_code: 400,
            description: `Bad Request: no such path ${req.url} (${fake.botToken.split(':')[1]})`,
          }),
        );
      });
      await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
      try {
        const base = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
        const outcome = await adapter.send(account({ settings: { apiBaseUrl: base } }), message(1));
        expect(outcome).toMatchObject({ kind: 'rejected', permanent: false });
        expect(JSON.stringify(outcome)).toContain('[redacted]');
        noToken(outcome);
      } finally {
        echo.closeAllConnections();
        await new Promise((r) => echo.close(r));
      }
    });
  });

  describe('register, verifySignature, parseInbound', () => {
    it('setWebhook with the derived secret and the two update types', async () => {
      await adapter.register(account(), hookUrl);
      expect(fake.webhook).toEqual({
        url: hookUrl,
        secretToken: telegramWebhookSecret(fake.botToken, 'prov-1'),
        allowedUpdates: ['message', 'my_chat_member'],
        maxConnections: 40,
      });
    });

    it('a pushed deep-link Update is verified and read, its start payload found', async () => {
      await adapter.register(account(), hookUrl);
      const user = fake.newUser({ first_name: 'Ada' });
      await fake.openDeepLink('ct_9f2A-x', user);
      const callback = callbackFromHook();
      expect(adapter.verifySignature(account(), callback)).toBe(true);
      expect(adapter.parseStatus()).toEqual([]);
      const inbound = adapter.parseInbound(callback, account());
      expect(inbound).toEqual([
        {
          kind: 'message',
          providerMessageId: `${user.id}:1`,
          from: String(user.id),
          to: '@mp_fake_bot',
          text: '/start ct_9f2A-x',
        },
      ]);
      expect(telegramStartPayload((inbound[0] as { text: string }).text)).toBe('ct_9f2A-x');
    });

    it('refuses a forged or missing secret, another account, another token, a GET', async () => {
      await adapter.register(account(), hookUrl);
      await fake.sendText(fake.newUser(), 'hi');
      const genuine = callbackFromHook();
      expect(adapter.verifySignature(account(), genuine)).toBe(true);
      const forged = {
        ...genuine,
        headers: { 'x-telegram-bot-api-secret-token': 'A'.repeat(43) },
      };
      expect(adapter.verifySignature(account(), forged)).toBe(false);
      expect(adapter.verifySignature(account(), { ...genuine, headers: {} })).toBe(false);
      expect(adapter.verifySignature(account({ id: 'prov-2' }), genuine)).toBe(false);
      expect(
        adapter.verifySignature(
          account({ credentials: { botToken: `${fake.botId}:AA${'y'.repeat(33)}` } }),
          genuine,
        ),
      ).toBe(false);
      expect(adapter.verifySignature(account(), { ...genuine, method: 'GET' })).toBe(false);
    });

    it('a block and a restart → blocked, then unblocked', async () => {
      await adapter.register(account(), hookUrl);
      const chatId = await newChat();
      await fake.block(chatId);
      expect(adapter.parseInbound(callbackFromHook(), account())).toEqual([
        { kind: 'blocked', from: String(chatId) },
      ]);
      await fake.unblock(chatId);
      expect(adapter.parseInbound(callbackFromHook(), account())).toEqual([
        { kind: 'unblocked', from: String(chatId) },
      ]);
    });

    it('a refusal throws a message that names no token', async () => {
      fake.localMode = false;
      try {
        const err = await adapter.register(account(), hookUrl).catch((e: Error) => e);
        expect(err).toBeInstanceOf(Error);
        expect((err as Error).message).toBe(
          'Telegram refused the webhook: Telegram 400: Bad Request: bad webhook: An HTTPS URL must be provided for webhook',
        );
      } finally {
        fake.localMode = true;
      }
      const bad = `${fake.botId}:AA${'z'.repeat(33)}`;
      const unauthorized = await adapter
        .register(account({ credentials: { botToken: bad } }), hookUrl)
        .catch((e: Error) => e);
      expect((unauthorized as Error).message).toBe(
        'Telegram refused the webhook: Telegram 401: Unauthorized',
      );
      await fake.stop();
      try {
        const down = await adapter.register(account(), hookUrl).catch((e: Error) => e);
        // No answer is an outage (the account's save is a 503), not a refusal of the token.
        expect(down).toBeInstanceOf(ProviderUnreachableError);
        expect((down as Error).message).toMatch(/^Telegram Bot API unreachable: /);
        expect((down as Error).message).not.toContain(fake.botToken);
      } finally {
        await fake.start();
      }
    });
  });

  describe("Telegram's published example Updates (core.telegram.org/bots/webhooks)", () => {
    const callback = (update: unknown): ProviderCallback => ({
      url: hookUrl,
      method: 'POST',
      headers: {},
      rawBody: Buffer.from(JSON.stringify(update)),
    });
    const messageWithText = {
      update_id: 10000,
      message: {
        date: 1441645532,
        chat: {
          last_name: 'Test Lastname',
          id: 1111111,
          type: 'private',
          first_name: 'Test Firstname',
          username: 'Testusername',
        },
        message_id: 1365,
        from: {
          last_name: 'Test Lastname',
          id: 1111111,
          first_name: 'Test Firstname',
          username: 'Testusername',
        },
        text: '/start',
      },
    };

    it('"Message with text"', () => {
      expect(adapter.parseInbound(callback(messageWithText), account())).toEqual([
        {
          kind: 'message',
          providerMessageId: '1111111:1365',
          from: '1111111',
          to: '@mp_fake_bot',
          text: '/start',
        },
      ]);
      expect(telegramStartPayload('/start')).toBeNull();
    });

    it('"Forwarded message"', () => {
      const forwarded = {
        ...messageWithText,
        message: {
          ...messageWithText.message,
          forward_from: {
            last_name: 'Forward Lastname',
            id: 222222,
            first_name: 'Forward Firstname',
          },
          forward_date: 1441645550,
        },
      };
      expect(adapter.parseInbound(callback(forwarded), account())).toMatchObject([
        { kind: 'message', from: '1111111', text: '/start' },
      ]);
    });

    it('a message without text, an edited message and a body that is no JSON give nothing', () => {
      const { text: _text, ...photo } = messageWithText.message;
      expect(
        adapter.parseInbound(
          callback({ update_id: 1, message: { ...photo, photo: [] } }),
          account(),
        ),
      ).toEqual([]);
      expect(
        adapter.parseInbound(
          callback({ update_id: 2, edited_message: messageWithText.message }),
          account(),
        ),
      ).toEqual([]);
      expect(
        adapter.parseInbound({ ...callback({}), rawBody: Buffer.from('not json') }, account()),
      ).toEqual([]);
    });

    it('my_chat_member in a group: the bot removed → blocked for the group chat', () => {
      const update = {
        update_id: 3,
        my_chat_member: {
          chat: { id: -1001234567890, title: 'Team', type: 'supergroup' },
          from: { id: 1111111, is_bot: false, first_name: 'Test' },
          date: 1441645600,
          old_chat_member: { user: { id: 1, is_bot: true, first_name: 'Bot' }, status: 'member' },
          new_chat_member: {
            user: { id: 1, is_bot: true, first_name: 'Bot' },
            status: 'kicked',
            until_date: 0,
          },
        },
      };
      expect(adapter.parseInbound(callback(update), account())).toEqual([
        { kind: 'blocked', from: '-1001234567890' },
      ]);
      const joined = {
        ...update,
        my_chat_member: {
          ...update.my_chat_member,
          old_chat_member: { ...update.my_chat_member.old_chat_member, status: 'left' },
          new_chat_member: { ...update.my_chat_member.old_chat_member, status: 'member' },
        },
      };
      // Joining (not a restart after a block) is no unblock.
      expect(adapter.parseInbound(callback(joined), account())).toEqual([]);
    });
  });

  describe('helpers', () => {
    it('telegramDeepLink builds t.me links and refuses payloads Telegram would not take', () => {
      expect(telegramDeepLink('mp_fake_bot', 'ct_9f2A-x')).toBe(
        'https://t.me/mp_fake_bot?start=ct_9f2A-x',
      );
      expect(telegramDeepLink('@mp_fake_bot', 'a')).toBe('https://t.me/mp_fake_bot?start=a');
      expect(() => telegramDeepLink('b', 'a'.repeat(65))).toThrow();
      expect(() => telegramDeepLink('b', 'a b')).toThrow();
      expect(() => telegramDeepLink('b', '')).toThrow();
    });

    it('telegramStartPayload reads `/start <payload>` only', () => {
      expect(telegramStartPayload('/start abc-_1')).toBe('abc-_1');
      expect(telegramStartPayload('/start@mp_fake_bot abc')).toBe('abc');
      expect(telegramStartPayload('/start ' + 'a'.repeat(65))).toBeNull();
      expect(telegramStartPayload('/start a b')).toBeNull();
      expect(telegramStartPayload('hello /start abc')).toBeNull();
    });

    it('telegramWebhookSecret: 43 allowed characters, one per token and account', () => {
      const s = telegramWebhookSecret('123:abc', 'acc-1');
      expect(s).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(telegramWebhookSecret('123:abc', 'acc-1')).toBe(s);
      expect(telegramWebhookSecret('123:abd', 'acc-1')).not.toBe(s);
      expect(telegramWebhookSecret('123:abc', 'acc-2')).not.toBe(s);
    });
  });
});
