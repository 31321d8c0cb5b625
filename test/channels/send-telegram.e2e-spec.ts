// POST /api/v1/send/telegram end to end (§17): the api listening on PUBLIC_BASE_URL, the worker in
// this process, the Telegram Bot API fake taking setWebhook and the sends, its users opening the
// bot's deep link, blocking and unblocking it, each an Update posted to our webhook.
import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { telegramWebhookSecret } from '@app/domain/channels/providers/telegram-bot.adapter';
import { TelegramLinkTokens } from '@app/domain/channels/telegram-link-token';
import { waitForMessage } from '../sending/support/sending';
import { newBotToken, TelegramFake } from '../support/providers/telegram-fake';
import { createSession, Session } from '../support/session';
import { waitFor } from '../support/wait-for';
import { Receiver } from '../webhooks/webhook-support';
import { ChannelStack, startChannelStack, telegramAccount } from './support/accounts';

describe('POST /api/v1/send/telegram → Telegram Bot API', () => {
  let tg: TelegramFake;
  let stack: ChannelStack;
  let app: INestApplication;
  let s: Session;
  let ds: DataSource;
  let providerId: string;
  let base: string;
  let receiver: Receiver;
  /** Every log line of the api and the worker, at debug level, for the secrets check. */
  let lines: string[];
  /** Every response body of this file's calls to the api. */
  const bodies: string[] = [];
  /** Every job the api and the worker put on the delivery queue. */
  let payloads: string[];

  beforeAll(async () => {
    tg = await TelegramFake.start({ localMode: true, botUsername: 'acme_news_bot' });
    stack = await startChannelStack();
    ({ app, base, lines, payloads } = stack);
    s = await createSession(app, { plan: 'pro' });
    ds = app.get(DataSource);
    receiver = await new Receiver().start();
    await s.http
      .post('/api/v1/user/webhook-endpoints', {
        url: receiver.url,
        events: ['message.sent', 'message.delivered', 'message.failed'],
      })
      .expect(201);
  });
  afterAll(async () => {
    await stack.stop();
    await tg.stop();
    await receiver.stop();
  });
  beforeEach(() => tg.resetFloodControl());

  const callbackUrl = () => `${base}/channels/callbacks/${providerId}`;

  const telegramProviders = async (session: Session): Promise<string[]> => {
    const res = await session.http
      .get('/api/v1/user/channel-providers?channel=telegram')
      .expect(200);
    bodies.push(res.text);
    return (res.body.data as { id: string }[]).map((p) => p.id);
  };

  /** A contact with one Telegram record (no chat yet), through the contacts API. */
  async function telegramContact(session: Session = s, phoneNumber = '+4915100000001') {
    const contact = await session.http
      .post('/api/v1/user/contacts', { firstName: 'Tele' })
      .expect(201);
    const contactId = contact.body.data.id as string;
    const record = await session.http
      .post(`/api/v1/user/contacts/${contactId}/telegram`, { phoneNumber })
      .expect(201);
    return { contactId, recordId: record.body.data.id as string };
  }

  async function linkOf(contactId: string, recordId: string, session: Session = s) {
    const res = await session.http
      .post(`/api/v1/user/contacts/${contactId}/telegram/${recordId}/link`, {})
      .expect(200);
    bodies.push(res.text);
    return res.body.data as { url: string; providerId: string; botUsername: string };
  }

  const tokenOf = (url: string) => new URL(url).searchParams.get('start')!;

  /** The record as the database holds it: its status and whether it has a chat. */
  const recordRow = async (recordId: string) => {
    const [row]: { status: string; linked: boolean }[] = await ds.query(
      `SELECT status, chat_id IS NOT NULL AS linked FROM contact_telegram WHERE id = $1`,
      [recordId],
    );
    return row;
  };

  /** A contact whose record opened the deep link: its chat with the bot. */
  async function linkedContact(phoneNumber: string) {
    const { contactId, recordId } = await telegramContact(s, phoneNumber);
    const { url } = await linkOf(contactId, recordId);
    const opened = await tg.openDeepLink(tokenOf(url));
    expect(opened.deliveries.map((d) => d.status)).toEqual([200]);
    expect(await recordRow(recordId)).toEqual({ status: 'active', linked: true });
    return { contactId, recordId, chatId: opened.chatId };
  }

  interface Delivered {
    type: string;
    data: Record<string, unknown>;
  }
  const received = (): Delivered[] => receiver.requests.map((r) => JSON.parse(r.body) as Delivered);
  const eventsOf = (jobId: string, count: number) =>
    waitFor(
      () => {
        const mine = received().filter((e) => e.data.jobId === jobId);
        return mine.length >= count ? mine : null;
      },
      { what: `${count} events of ${jobId}` },
    );

  async function send(to: Record<string, string>, text = 'Your order shipped', extra = {}) {
    const res = await s.http
      .post('/api/v1/send/telegram', { to, content: { text }, ...extra })
      .expect(202);
    bodies.push(res.text);
    expect(res.body.data).toEqual({
      jobId: expect.stringMatching(/^job_[0-9A-HJKMNP-TV-Z]{26}$/),
      channel: 'telegram',
      status: 'queued',
    });
    return res.body.data.jobId as string;
  }

  const sentTo = (chatId: number) => tg.messages.filter((m) => m.chatId === chatId);

  it('sets the webhook with our callback URL and a secret token when the account is created', async () => {
    const res = await s.http
      .post('/api/v1/user/channel-providers', telegramAccount(tg))
      .expect(201);
    bodies.push(res.text);
    providerId = res.body.data.id as string;
    expect(res.body.data).toMatchObject({ channel: 'telegram', provider: 'telegram-bot' });
    expect(tg.webhook).toMatchObject({
      url: callbackUrl(),
      secretToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      allowedUpdates: ['message', 'my_chat_member'],
    });
    const set = tg.requests.filter((r) => r.method === 'setWebhook');
    expect(set.map((r) => r.status)).toEqual([200]);
    expect(await telegramProviders(s)).toEqual([providerId]);
  });

  it('refuses a token the Bot API does not know with 422 on credentials, and creates nothing', async () => {
    const before = tg.requests.length;
    const res = await s.http
      .post('/api/v1/user/channel-providers', telegramAccount(tg, newBotToken()))
      .expect(422);
    bodies.push(res.text);
    expect(JSON.stringify(res.body)).toContain('credentials');
    expect(tg.requests.slice(before).map((r) => r.status)).toEqual([401]);
    expect(await telegramProviders(s)).toEqual([providerId]);
    expect(tg.webhook?.url).toBe(callbackUrl());
  });

  it('answers 503 when the Bot API cannot be reached, and creates nothing', async () => {
    await tg.stop();
    try {
      const res = await s.http
        .post('/api/v1/user/channel-providers', telegramAccount(tg))
        .expect(503);
      bodies.push(res.text);
      expect(res.body).toMatchObject({ code: 'E_SERVICE_UNAVAILABLE' });
    } finally {
      await tg.start();
    }
    // Telegram's front proxy answering 502 says nothing of the token either.
    tg.failNext(1, 502);
    const bad = await s.http
      .post('/api/v1/user/channel-providers', telegramAccount(tg))
      .expect(503);
    bodies.push(bad.text);
    expect(await telegramProviders(s)).toEqual([providerId]);
    expect(tg.webhook?.url).toBe(callbackUrl());
  });

  it('answers 422 on to.contactId for a record whose deep link was never opened', async () => {
    const { contactId, recordId } = await telegramContact(s, '+4915100000002');
    const res = await s.http
      .post('/api/v1/send/telegram', { to: { contactId }, content: { text: 'Hi' } })
      .expect(422);
    expect(JSON.stringify(res.body)).toContain('to.contactId');
    expect(await recordRow(recordId)).toMatchObject({ linked: false });
  });

  it('links the chat that opens the deep link, then delivers to it by contactId', async () => {
    const { contactId, recordId } = await telegramContact(s, '+4915100000003');
    const link = await linkOf(contactId, recordId);
    expect(link).toEqual({
      url: expect.stringMatching(/^https:\/\/t\.me\/acme_news_bot\?start=[A-Za-z0-9_-]{43}$/),
      providerId,
      botUsername: 'acme_news_bot',
    });
    const opened = await tg.openDeepLink(tokenOf(link.url));
    expect(opened.deliveries).toEqual([
      expect.objectContaining({ status: 200, secretToken: tg.webhook!.secretToken }),
    ]);
    expect(await recordRow(recordId)).toEqual({ status: 'active', linked: true });
    const contact = await s.http.get(`/api/v1/user/contacts/${contactId}`).expect(200);
    expect(contact.body.data.telegramAccounts).toEqual([
      expect.objectContaining({ id: recordId, status: 'active', lastActiveAt: expect.any(String) }),
    ]);

    const jobId = await send({ contactId }, '<b>Shipped</b> today');
    const delivered = await waitForMessage(s.http, jobId, (m) => m.status === 'delivered');
    expect(delivered).toMatchObject({ channel: 'telegram', recipients: [String(opened.chatId)] });
    expect(delivered.deliveryAttempts).toEqual([expect.objectContaining({ status: 'delivered' })]);
    const taken = sentTo(opened.chatId);
    expect(taken).toHaveLength(1);
    expect(taken[0]).toMatchObject({ text: '<b>Shipped</b> today', parseMode: null });

    // parseMode goes through as Telegram's parse_mode.
    tg.resetFloodControl();
    const html = await s.http
      .post('/api/v1/send/telegram', {
        to: { chatId: String(opened.chatId) },
        content: { text: '<b>Bold</b> move', parseMode: 'HTML' },
      })
      .expect(202);
    await waitForMessage(s.http, html.body.data.jobId, (m) => m.status === 'delivered');
    expect(sentTo(opened.chatId)[1]).toMatchObject({
      text: 'Bold move',
      parseMode: 'HTML',
      entities: [{ type: 'bold', offset: 0, length: 4 }],
    });

    const events = await eventsOf(jobId, 1);
    expect(events.map((e) => e.type)).toEqual(['message.delivered']);
    expect(events[0].data).toMatchObject({
      channel: 'telegram',
      recipient: String(opened.chatId),
      providerMessageId: `${opened.chatId}:${taken[0].messageId}`,
    });
  });

  it('links nothing for a token of another record, bot or organization, or a forged one', async () => {
    const { contactId, recordId } = await telegramContact(s, '+4915100000004');
    const other = await createSession(app, { plan: 'pro' });
    const theirs = await telegramContact(other, '+4915100000005');
    const tokens = app.get(TelegramLinkTokens);
    const genuine = tokenOf((await linkOf(contactId, recordId)).url);
    // One character of the MAC changed (not the last: its low bits are padding base64 ignores).
    const flipped = genuine.slice(0, 30) + (genuine[30] === 'A' ? 'Q' : 'A') + genuine.slice(31);
    const refused = [
      // Our record, signed for another bot.
      tokens.sign(recordId, randomUUID()),
      // Another organization's record, signed for our bot: the record is not ours to link.
      tokens.sign(theirs.recordId, providerId),
      flipped,
      'A'.repeat(43),
    ];
    for (const token of refused) {
      const opened = await tg.openDeepLink(token);
      expect(opened.deliveries.map((d) => d.status)).toEqual([200]);
    }
    expect(await recordRow(recordId)).toMatchObject({ linked: false });
    expect(await recordRow(theirs.recordId)).toMatchObject({ linked: false });
    const [{ n }]: { n: number }[] = await ds.query(
      `SELECT count(*)::int AS n FROM contact_telegram WHERE id = ANY($1) AND chat_id IS NOT NULL`,
      [[recordId, theirs.recordId]],
    );
    expect(n).toBe(0);
  });

  it('refuses an update with a wrong or no secret header with 403 and links nothing', async () => {
    const { contactId, recordId } = await telegramContact(s, '+4915100000006');
    const token = tokenOf((await linkOf(contactId, recordId)).url);
    const update = JSON.stringify({
      update_id: 1,
      message: {
        message_id: 1,
        from: { id: 77001, is_bot: false, first_name: 'Eve' },
        chat: { id: 77001, first_name: 'Eve', type: 'private' },
        date: Math.floor(Date.now() / 1000),
        text: `/start ${token}`,
        entities: [{ offset: 0, length: 6, type: 'bot_command' }],
      },
    });
    for (const secret of [telegramWebhookSecret(newBotToken(), providerId), 'wrong', null]) {
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (secret) headers['X-Telegram-Bot-Api-Secret-Token'] = secret;
      const res = await fetch(callbackUrl(), { method: 'POST', headers, body: update });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ code: 'E_FORBIDDEN' });
    }
    expect(await recordRow(recordId)).toMatchObject({ linked: false });
  });

  it('marks a record blocked when its person blocks the bot, suppresses sends, and unblocks', async () => {
    const { contactId, recordId, chatId } = await linkedContact('+4915100000007');
    expect((await tg.block(chatId)).status).toBe(200);
    expect(await recordRow(recordId)).toEqual({ status: 'blocked', linked: true });

    const before = tg.requests.filter((r) => r.method === 'sendMessage').length;
    const jobId = await send({ contactId });
    const suppressed = await waitForMessage(s.http, jobId, (m) => m.status === 'suppressed');
    expect(suppressed.deliveryAttempts).toEqual([
      expect.objectContaining({ status: 'suppressed' }),
    ]);
    expect(tg.requests.filter((r) => r.method === 'sendMessage')).toHaveLength(before);
    expect(sentTo(chatId)).toEqual([]);
    expect((await eventsOf(jobId, 1)).map((e) => e.type)).toEqual(['message.failed']);

    expect((await tg.unblock(chatId)).status).toBe(200);
    expect(await recordRow(recordId)).toEqual({ status: 'active', linked: true });
    const again = await send({ contactId });
    await waitForMessage(s.http, again, (m) => m.status === 'delivered');
    expect(sentTo(chatId)).toHaveLength(1);
  });

  it('defers on a 429 until its retry_after, then sends', async () => {
    const { contactId, chatId } = await linkedContact('+4915100000008');
    // When the retry may come (the account paused for the Retry-After, the message deferred to its
    // end) is proven on a fixed clock in channel-delivery.service.spec.ts; here, the wiring.
    tg.failNext(1, 429, 1);
    const jobId = await send({ contactId });
    const delivered = await waitForMessage(s.http, jobId, (m) => m.status === 'delivered');
    expect(delivered.deliveryAttempts.map((a) => a.status)).toEqual(['deferred', 'delivered']);
    expect(delivered.deliveryAttempts[0]).toMatchObject({ providerCode: '429' });
    expect(sentTo(chatId)).toHaveLength(1);
  });

  it('spaces two quick messages to one chat a second apart, within the chat limit', async () => {
    // The provider layer keeps Telegram's one message a second to a chat. The judge is the fake's
    // flood control, which answers 429 to a second message to a chat within a second: none is met.
    // The spacing itself is the throttle's e2e file, on a manual clock.
    const { contactId, chatId } = await linkedContact('+4915100000009');
    const first = await send({ contactId }, 'One');
    const second = await send({ contactId }, 'Two');
    const done = await Promise.all(
      [first, second].map((j) => waitForMessage(s.http, j, (m) => m.status === 'delivered')),
    );
    const taken = tg.requests.filter(
      (r) => r.method === 'sendMessage' && r.status === 200 && r.params.chat_id === String(chatId),
    );
    expect(taken).toHaveLength(2);
    expect(
      sentTo(chatId)
        .map((m) => m.text)
        .sort(),
    ).toEqual(['One', 'Two']);
    const attempts = done.map((m) => m.deliveryAttempts.map((a) => a.status));
    expect(attempts).toEqual([['delivered'], ['delivered']]);
    expect(
      tg.requests.filter((r) => r.status === 429 && r.params.chat_id === String(chatId)),
    ).toEqual([]);
  });

  it('bounces on a 403 (blocked without an update) and marks the record blocked', async () => {
    const { contactId, recordId, chatId } = await linkedContact('+4915100000010');
    // The person blocks the bot; the update never reaches us.
    tg.chats.get(chatId)!.blocked = true;
    const jobId = await send({ contactId });
    const bounced = await waitForMessage(s.http, jobId, (m) => m.status === 'bounced');
    expect(bounced.deliveryAttempts).toEqual([
      expect.objectContaining({ status: 'bounced', providerCode: 'blocked' }),
    ]);
    expect(await recordRow(recordId)).toEqual({ status: 'blocked', linked: true });
    expect(sentTo(chatId)).toEqual([]);
  });

  it('keeps another organization out of our records and our bot', async () => {
    const { contactId, recordId, chatId } = await linkedContact('+4915100000011');
    const other = await createSession(app, { plan: 'pro' });
    await other.http
      .post(`/api/v1/user/contacts/${contactId}/telegram/${recordId}/link`, {})
      .expect(404);
    await other.http
      .post('/api/v1/send/telegram', {
        to: { chatId: String(chatId) },
        content: { text: 'x' },
        providerId,
      })
      .expect(404);
    await other.http
      .post('/api/v1/send/telegram', { to: { contactId }, content: { text: 'x' } })
      .expect(404);
    // Their own record cannot be linked through our bot either.
    const theirs = await telegramContact(other, '+4915100000012');
    await other.http
      .post(`/api/v1/user/contacts/${theirs.contactId}/telegram/${theirs.recordId}/link`, {
        providerId,
      })
      .expect(404);
    expect(sentTo(chatId)).toEqual([]);
  });

  it('never puts the bot token or the webhook secret in a response, a log line or a queue payload', async () => {
    const secrets = [
      tg.botToken,
      tg.botToken.split(':')[1],
      encodeURIComponent(tg.botToken),
      tg.webhook!.secretToken,
    ];
    expect(lines.length).toBeGreaterThan(20);
    expect(bodies.length).toBeGreaterThan(10);
    expect(payloads.length).toBeGreaterThan(5);
    for (const secret of secrets) {
      expect(lines.filter((l) => l.includes(secret))).toEqual([]);
      expect(bodies.filter((b) => b.includes(secret))).toEqual([]);
      expect(payloads.filter((p) => p.includes(secret))).toEqual([]);
    }
  });
});
