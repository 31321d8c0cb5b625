// The Telegram fake against the Bot API's documentation and the Bot API server's own messages:
// requests in each of Telegram's encodings, its errors, flood control, webhooks and the Updates
// a person's actions produce.
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TelegramFake } from './telegram-fake';

/** A parsed JSON document, read without checks. */
type Json = { [key: string]: Json };

describe(TelegramFake.name, () => {
  let fake: TelegramFake;
  let clock: number;
  let hook: Server;
  let hookUrl: string;
  let hookStatus = 200;
  const received: { headers: IncomingHttpHeaders; body: Record<string, unknown> }[] = [];

  beforeAll(async () => {
    clock = Date.UTC(2030, 0, 1);
    fake = await TelegramFake.start({ localMode: true, now: () => clock });
    hook = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({
          headers: req.headers,
          body: JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>,
        });
        res.writeHead(hookStatus).end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/channels/callbacks/p1`;
  });
  beforeEach(() => {
    // Each test starts past the flood-control window of the one before.
    clock += 5000;
    hookStatus = 200;
  });
  afterAll(async () => {
    await fake.stop();
    hook.closeAllConnections();
    await new Promise((r) => hook.close(r));
  });

  const api = (method: string, token = fake.botToken) => `${fake.baseUrl}/bot${token}/${method}`;
  const postJson = async (method: string, body: unknown, token?: string) => {
    const res = await fetch(api(method, token), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const newChat = async () => (await fake.openDeepLink('tok')).chatId;

  describe('making requests', () => {
    it('takes a GET with the query string, a form and a JSON body; method names in any case', async () => {
      const chatId = await newChat();
      const viaQuery = await fetch(`${api('sendMessage')}?chat_id=${chatId}&text=query`);
      expect(viaQuery.status).toBe(200);
      clock += 2000;
      const viaForm = await fetch(api('SENDMESSAGE'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ chat_id: String(chatId), text: 'form' }).toString(),
      });
      expect(viaForm.status).toBe(200);
      clock += 2000;
      const viaJson = await postJson('sendmessage', { chat_id: chatId, text: 'json' });
      expect(viaJson.status).toBe(200);
      expect(fake.messages.slice(-3).map((m) => [m.text, m.params.chat_id])).toEqual([
        ['query', String(chatId)],
        ['form', String(chatId)],
        ['json', String(chatId)],
      ]);
      expect(fake.requests.at(-1)).toMatchObject({
        httpMethod: 'POST',
        method: 'sendmessage',
        contentType: 'application/json',
        status: 200,
      });
    });

    it('getMe: the bot as a User with its capabilities', async () => {
      const res = await fetch(api('getMe'));
      expect(await res.json()).toEqual({
        ok: true,
        result: {
          id: fake.botId,
          is_bot: true,
          first_name: 'Fake Bot',
          username: 'mp_fake_bot',
          can_join_groups: true,
          can_read_all_group_messages: false,
          supports_inline_queries: false,
          can_connect_to_business: false,
          has_main_web_app: false,
        },
      });
    });

    it.each([
      ['a token of no bot', () => `${fake.botId}:AA${'x'.repeat(33)}`, 'Unauthorized'],
      ['a malformed token', () => 'not-a-token', 'Unauthorized: invalid token specified'],
      ['a token starting with 0', () => '0123:abc', 'Unauthorized: invalid token specified'],
    ])('401 for %s', async (_, token, description) => {
      const res = await fetch(api('getMe', token()));
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ ok: false, error_code: 401, description });
    });

    it('404 for an unknown method and for a path that is no method', async () => {
      const unknown = await fetch(api('sendTelepathy'));
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual({
        ok: false,
        error_code: 404,
        description: 'Not Found: method not found',
      });
      const path = await fetch(`${fake.baseUrl}/getMe`);
      expect(path.status).toBe(404);
      expect(await path.json()).toMatchObject({ ok: false, description: 'Not Found' });
    });

    it('a JSON body that does not parse is refused', async () => {
      const res = await fetch(api('sendMessage'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"chat_id":',
      });
      expect(res.status).toBe(400);
    });
  });

  describe('sendMessage', () => {
    it('answers the Message sent to a person who opened the deep link', async () => {
      const user = fake.newUser({ first_name: 'Ada', username: 'ada' });
      const { chatId } = await fake.openDeepLink('abc', user);
      const { status, body } = await postJson('sendMessage', { chat_id: chatId, text: 'Hello' });
      expect(status).toBe(200);
      expect(body).toEqual({
        ok: true,
        result: {
          message_id: 2, // the person's /start was message 1 of the chat
          from: { id: fake.botId, is_bot: true, first_name: 'Fake Bot', username: 'mp_fake_bot' },
          chat: { id: user.id, first_name: 'Ada', username: 'ada', type: 'private' },
          date: Math.floor(clock / 1000),
          text: 'Hello',
        },
      });
    });

    it('sends to a group by its negative id', async () => {
      const group = fake.addGroup('Team');
      const { body } = await postJson('sendMessage', { chat_id: String(group.id), text: 'Hi all' });
      expect(body.result.chat).toEqual({ id: group.id, title: 'Team', type: 'supergroup' });
    });

    it.each([
      ['no chat_id', { text: 'x' }, 'Bad Request: chat_id is empty'],
      ['an unknown chat', { chat_id: 999, text: 'x' }, 'Bad Request: chat not found'],
      ['a username of no chat', { chat_id: '@nobody', text: 'x' }, 'Bad Request: chat not found'],
      ['no text', { chat_id: 'CHAT' }, 'Bad Request: message text is empty'],
      [
        'only blanks once parsed',
        { chat_id: 'CHAT', text: '<b> </b>', parse_mode: 'HTML' },
        'Bad Request: message must be non-empty',
      ],
      [
        '4097 characters',
        { chat_id: 'CHAT', text: 'a'.repeat(4097) },
        'Bad Request: message is too long',
      ],
      [
        'an unknown parse_mode',
        { chat_id: 'CHAT', text: 'x', parse_mode: 'BBCode' },
        'Bad Request: unsupported parse_mode',
      ],
    ])('400 for %s', async (_, params, description) => {
      const chatId = await newChat();
      const body = JSON.parse(JSON.stringify(params).replace('"CHAT"', String(chatId)));
      const res = await postJson('sendMessage', body);
      expect(res).toEqual({ status: 400, body: { ok: false, error_code: 400, description } });
    });

    it('counts the length after the markup is parsed: 4096 characters in tags pass', async () => {
      const chatId = await newChat();
      const text = `<b>${'a'.repeat(4096)}</b>`;
      const res = await postJson('sendMessage', { chat_id: chatId, text, parse_mode: 'HTML' });
      expect(res.status).toBe(200);
      expect(res.body.result.entities).toEqual([{ type: 'bold', offset: 0, length: 4096 }]);
    });

    it("parses the documentation's HTML example into entities", async () => {
      const chatId = await newChat();
      const text =
        '<b>bold</b>, <strong>bold</strong> <i>italic</i> <u>u</u> <s>s</s> ' +
        '<span class="tg-spoiler">sp</span> <a href="http://www.example.com/">inline URL</a> ' +
        '<code>c</code> <pre>p</pre> &lt;&amp;&gt; &#128512;';
      const res = await postJson('sendMessage', { chat_id: chatId, text, parse_mode: 'HTML' });
      expect(res.status).toBe(200);
      expect(res.body.result.text).toBe('bold, bold italic u s sp inline URL c p <&> 😀');
      expect(res.body.result.entities).toEqual([
        { type: 'bold', offset: 0, length: 4 },
        { type: 'bold', offset: 6, length: 4 },
        { type: 'italic', offset: 11, length: 6 },
        { type: 'underline', offset: 18, length: 1 },
        { type: 'strikethrough', offset: 20, length: 1 },
        { type: 'spoiler', offset: 22, length: 2 },
        { type: 'text_link', offset: 25, length: 10, url: 'http://www.example.com/' },
        { type: 'code', offset: 36, length: 1 },
        { type: 'pre', offset: 38, length: 1 },
      ]);
    });

    it.each([
      ['HTML', 'Hi <div>x</div>', 'Unsupported start tag "div" at byte offset 3'],
      ['HTML', '🏟 <b>x</i>', 'Unmatched end tag at byte offset 9, expected "</b>", found "</i>"'],
      ['HTML', 'x </b>', 'Unexpected end tag at byte offset 2'],
      ['HTML', 'a <b x', 'Unclosed start tag at byte offset 2'],
      ['HTML', '<b>open', 'Can\'t find end tag corresponding to start tag "b"'],
      ['HTML', '<span>x</span>', 'Tag "span" must have class "tg-spoiler" at byte offset 0'],
      [
        'MarkdownV2',
        'Version 1.0',
        "Character '.' is reserved and must be escaped with the preceding '\\'",
      ],
      ['MarkdownV2', '🏟 🏟_abacaba', "Can't find end of Italic entity at byte offset 9"],
      ['MarkdownV2', '🏟 🏟`', "Can't find end of Code entity at byte offset 9"],
      ['Markdown', '*unclosed', "Can't find end of the entity starting at byte offset 0"],
    ])("%s %j → can't parse entities: %s", async (parse_mode, text, error) => {
      const chatId = await newChat();
      const res = await postJson('sendMessage', { chat_id: chatId, text, parse_mode });
      expect(res).toEqual({
        status: 400,
        body: {
          ok: false,
          error_code: 400,
          description: `Bad Request: can't parse entities: ${error}`,
        },
      });
    });

    it('parses MarkdownV2 and legacy Markdown', async () => {
      const chatId = await newChat();
      const v2 = await postJson('sendMessage', {
        chat_id: chatId,
        text: '*bold* _it_ __u__ ~s~ ||sp|| [link](http://x.example/a\\)b) `c` 1\\.0',
        parse_mode: 'MarkdownV2',
      });
      expect(v2.body.result.text).toBe('bold it u s sp link c 1.0');
      expect(v2.body.result.entities).toEqual([
        { type: 'bold', offset: 0, length: 4 },
        { type: 'italic', offset: 5, length: 2 },
        { type: 'underline', offset: 8, length: 1 },
        { type: 'strikethrough', offset: 10, length: 1 },
        { type: 'spoiler', offset: 12, length: 2 },
        { type: 'text_link', offset: 15, length: 4, url: 'http://x.example/a)b' },
        { type: 'code', offset: 20, length: 1 },
      ]);
      clock += 2000;
      const legacy = await postJson('sendMessage', {
        chat_id: chatId,
        text: '*b* _i_ 1.0',
        parse_mode: 'Markdown',
      });
      expect(legacy.body.result.text).toBe('b i 1.0');
    });

    it('Telegram parses the markup before it looks at the chat', async () => {
      const res = await postJson('sendMessage', { chat_id: 1, text: '<x>', parse_mode: 'HTML' });
      expect(res.body.description).toMatch(/^Bad Request: can't parse entities/);
    });

    it('403 once the person blocked the bot; START again unblocks', async () => {
      const chatId = await newChat();
      await fake.block(chatId);
      const blocked = await postJson('sendMessage', { chat_id: chatId, text: 'x' });
      expect(blocked).toEqual({
        status: 403,
        body: { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' },
      });
      const again = await fake.openDeepLink('tok', fake.chats.get(chatId)!.user);
      expect(again.deliveries.map((d) => Object.keys(d.update)[1])).toEqual([
        'my_chat_member',
        'message',
      ]);
      expect((await postJson('sendMessage', { chat_id: chatId, text: 'x' })).status).toBe(200);
    });
  });

  describe('flood control', () => {
    it('more than one message a second to one chat → 429 with parameters.retry_after', async () => {
      const chatId = await newChat();
      expect((await postJson('sendMessage', { chat_id: chatId, text: '1' })).status).toBe(200);
      clock += 400;
      const res = await postJson('sendMessage', { chat_id: chatId, text: '2' });
      expect(res).toEqual({
        status: 429,
        body: {
          ok: false,
          error_code: 429,
          description: 'Too Many Requests: retry after 1',
          parameters: { retry_after: 1 },
        },
      });
      clock += 700;
      expect((await postJson('sendMessage', { chat_id: chatId, text: '3' })).status).toBe(200);
    });

    it('more than `perSecond` messages overall → 429; the numbers are options', async () => {
      fake.perSecond = 3;
      try {
        const chats = [await newChat(), await newChat(), await newChat(), await newChat()];
        const statuses = [];
        for (const chat_id of chats) {
          statuses.push((await postJson('sendMessage', { chat_id, text: 'x' })).status);
        }
        expect(statuses).toEqual([200, 200, 200, 429]);
      } finally {
        fake.perSecond = 30;
      }
    });
  });

  describe('webhooks', () => {
    beforeEach(async () => {
      await postJson('deleteWebhook', { drop_pending_updates: true });
    });

    it('setWebhook, getWebhookInfo, deleteWebhook answer as Telegram does', async () => {
      const set = await postJson('setWebhook', {
        url: hookUrl,
        secret_token: 'sec_RET-1',
        allowed_updates: ['message', 'my_chat_member'],
      });
      expect(set.body).toEqual({ ok: true, result: true, description: 'Webhook was set' });
      const again = await postJson('setWebhook', { url: hookUrl, secret_token: 'sec_RET-1' });
      expect(again.body.description).toBe('Webhook is already set');
      const info = await fetch(api('getWebhookInfo'));
      expect(await info.json()).toEqual({
        ok: true,
        result: {
          url: hookUrl,
          has_custom_certificate: false,
          pending_update_count: 0,
          max_connections: 40,
          ip_address: '127.0.0.1',
          allowed_updates: ['message', 'my_chat_member'],
        },
      });
      expect((await postJson('deleteWebhook', {})).body.description).toBe('Webhook was deleted');
      expect((await postJson('deleteWebhook', {})).body.description).toBe(
        'Webhook is already deleted',
      );
    });

    it.each([
      ['a URL that is none', { url: 'not a url' }, 'Bad Request: invalid webhook URL specified'],
      [
        'a secret of 257 characters',
        { url: 'https://h.example/x', secret_token: 'a'.repeat(257) },
        'Bad Request: secret token is too long',
      ],
      [
        'a secret with a space',
        { url: 'https://h.example/x', secret_token: 'has space' },
        'Bad Request: secret token contains unallowed characters',
      ],
    ])('setWebhook with %s', async (_, params, description) => {
      expect(await postJson('setWebhook', params)).toEqual({
        status: 400,
        body: { ok: false, error_code: 400, description },
      });
    });

    it('outside local mode: HTTPS only, on ports 443, 80, 88 or 8443', async () => {
      fake.localMode = false;
      try {
        expect((await postJson('setWebhook', { url: hookUrl })).body.description).toBe(
          'Bad Request: bad webhook: An HTTPS URL must be provided for webhook',
        );
        expect(
          (await postJson('setWebhook', { url: 'https://h.example:9000/x' })).body.description,
        ).toBe('Bad Request: bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443');
        expect((await postJson('setWebhook', { url: 'https://h.example:8443/x' })).status).toBe(
          200,
        );
      } finally {
        fake.localMode = true;
      }
    });

    it('a deep link opened: a real Update with the secret token header', async () => {
      await postJson('setWebhook', { url: hookUrl, secret_token: 'S3cret_token' });
      const user = fake.newUser({ first_name: 'Grace', username: 'grace' });
      received.length = 0;
      const { chatId, deliveries } = await fake.openDeepLink('c_42-x', user);
      expect(deliveries[0].status).toBe(200);
      expect(received).toHaveLength(1);
      expect(received[0].headers['x-telegram-bot-api-secret-token']).toBe('S3cret_token');
      expect(received[0].headers['content-type']).toBe('application/json');
      expect(received[0].body).toEqual({
        update_id: expect.any(Number),
        message: {
          message_id: 1,
          from: { id: user.id, is_bot: false, first_name: 'Grace', username: 'grace' },
          chat: { id: chatId, first_name: 'Grace', username: 'grace', type: 'private' },
          date: Math.floor(clock / 1000),
          text: '/start c_42-x',
          entities: [{ offset: 0, length: 6, type: 'bot_command' }],
        },
      });
      expect(fake.deepLink('c_42-x')).toBe('https://t.me/mp_fake_bot?start=c_42-x');
      await expect(fake.openDeepLink('bad payload!')).rejects.toThrow(/start parameter/);
    });

    it('block and unblock: my_chat_member kicked, then member; no header without a secret', async () => {
      await postJson('setWebhook', { url: hookUrl });
      const chatId = await newChat();
      received.length = 0;
      await fake.block(chatId);
      await fake.unblock(chatId);
      expect(received.map((r) => r.headers['x-telegram-bot-api-secret-token'])).toEqual([
        undefined,
        undefined,
      ]);
      const [kicked, member] = received.map((r) => r.body.my_chat_member as Json);
      expect(kicked).toMatchObject({
        chat: { id: chatId, type: 'private' },
        from: { id: chatId, is_bot: false },
        old_chat_member: { status: 'member', user: { id: fake.botId, is_bot: true } },
        new_chat_member: { status: 'kicked', until_date: 0, user: { id: fake.botId } },
      });
      expect(member).toMatchObject({
        old_chat_member: { status: 'kicked' },
        new_chat_member: { status: 'member' },
      });
      expect(received[1].body.update_id).toBe(Number(received[0].body.update_id) + 1);
    });

    it('only the allowed_updates types are posted', async () => {
      await postJson('setWebhook', { url: hookUrl, allowed_updates: '["message"]' });
      const chatId = await newChat();
      received.length = 0;
      await fake.block(chatId);
      await fake.sendText(chatId, 'hello there');
      expect(received.map((r) => Object.keys(r.body)[1])).toEqual(['message']);
      expect((received[0].body.message as Record<string, unknown>).entities).toBeUndefined();
    });

    it('a failing webhook keeps the update pending and reports the error', async () => {
      await postJson('setWebhook', { url: hookUrl });
      hookStatus = 500;
      const chatId = await newChat();
      const info = (await (await fetch(api('getWebhookInfo'))).json()) as Json;
      expect(info.result).toMatchObject({
        pending_update_count: 1,
        last_error_date: Math.floor(clock / 1000),
        last_error_message: 'Wrong response from the webhook: 500 Internal Server Error',
      });
      hookStatus = 200;
      const [retried] = await fake.retryPending();
      expect(retried.status).toBe(200);
      expect((retried.update.message as Json).chat.id).toBe(chatId);
      expect(fake.pending).toHaveLength(0);
    });

    it('without a webhook, updates wait', async () => {
      await newChat();
      expect(fake.pending).toHaveLength(1);
    });
  });

  describe('test controls', () => {
    it('failNext: 429 with retry_after, 500 JSON, 502 from the front proxy', async () => {
      fake.failNext(1, 429, 7);
      fake.failNext(1, 500);
      fake.failNext(1, 502);
      const throttled = await fetch(api('getMe'));
      expect(throttled.status).toBe(429);
      expect(await throttled.json()).toEqual({
        ok: false,
        error_code: 429,
        description: 'Too Many Requests: retry after 7',
        parameters: { retry_after: 7 },
      });
      const internal = await fetch(api('getMe'));
      expect(await internal.json()).toEqual({
        ok: false,
        error_code: 500,
        description: 'Internal Server Error',
      });
      const gateway = await fetch(api('getMe'));
      expect(gateway.status).toBe(502);
      expect(gateway.headers.get('content-type')).toBe('text/html');
      expect(await gateway.text()).toContain('502 Bad Gateway');
      expect((await fetch(api('getMe'))).status).toBe(200);
    });

    it('stop() refuses connections; start() serves the same port again', async () => {
      const base = fake.baseUrl;
      await fake.stop();
      await expect(fetch(api('getMe'))).rejects.toThrow();
      await fake.start();
      expect(fake.baseUrl).toBe(base);
      expect((await fetch(api('getMe'))).status).toBe(200);
    });
  });
});
