// Campaigns over several channels (§17) end to end: the api listening on PUBLIC_BASE_URL and the
// worker in this process, each contact of the audience reached once, on the first channel of the
// order it can be reached on, through the WhatsApp Cloud API, Twilio and Telegram fakes and the
// SMTP sink; the rest recorded unreachable.
import { DataSource } from 'typeorm';
import { MESSAGE_STATUSES } from '@app/domain';
import { sendingEnv } from '../sending/support/sending';
import { SmtpSink, startSmtpSink } from '../sending/support/smtp-sink';
import { TelegramFake } from '../support/providers/telegram-fake';
import { TwilioFake } from '../support/providers/twilio-fake';
import { WhatsappFake } from '../support/providers/whatsapp-fake';
import { createSession, Session } from '../support/session';
import { waitFor } from '../support/wait-for';
import { Receiver } from '../webhooks/webhook-support';
import {
  ChannelStack,
  connect,
  startChannelStack,
  telegramAccount,
  twilioAccount,
  whatsappAccount,
} from '../channels/support/accounts';
import { campaignBody } from './fixtures';
import {
  CohortRecords,
  liftLimits,
  SeededChannelList,
  SeededContact,
  seedChannelList,
} from './multichannel-fixtures';

const BASE = '/api/v1/user/campaigns';
const OUR_NUMBER = '+15005550006';
const TEMPLATE = { name: 'hello_world', language: 'en_US' };
const SMS_TEXT = 'Spring sale: twenty percent off';
const ORDER = ['whatsapp', 'sms', 'email'];

type Channel = 'whatsapp' | 'sms' | 'email';
/** The acceptance's audience: each cohort with the channel it must be reached on (null: none). */
const MIX: Record<string, { count: number; records: CohortRecords; on: Channel | null }> = {
  whatsappOnly: { count: 50, records: { whatsapp: 'verified' }, on: 'whatsapp' },
  everything: {
    count: 40,
    records: { whatsapp: 'unverified', sms: 'verified', email: 'verified' },
    on: 'whatsapp',
  },
  blockedOnWhatsapp: {
    count: 40,
    records: { whatsapp: 'blocked', sms: 'verified', email: 'verified' },
    on: 'sms',
  },
  smsOnly: { count: 40, records: { sms: 'unverified' }, on: 'sms' },
  smsOptedOut: { count: 40, records: { sms: 'opted_out', email: 'verified' }, on: 'email' },
  emailOnly: { count: 40, records: { email: 'unverified' }, on: 'email' },
  emailBounced: { count: 20, records: { email: 'bounced' }, on: null },
  noRecords: { count: 20, records: {}, on: null },
  allRefused: {
    count: 20,
    records: { whatsapp: 'blocked', sms: 'opted_out', email: 'bounced' },
    on: null,
  },
};

const digits = (phone: string) => phone.replace(/\D/g, '');
const sorted = (xs: string[]) => [...xs].sort();
/** Per-status delivery counts: zero unless given. */
const delivery = (given: Record<string, number>) =>
  Object.fromEntries(MESSAGE_STATUSES.map((st) => [st, given[st] ?? 0]));

describe('Multichannel campaigns (§17)', () => {
  let wa: WhatsappFake;
  let twilio: TwilioFake;
  let tg: TelegramFake;
  let sink: SmtpSink;
  let receiver: Receiver;
  let stack: ChannelStack;
  let ds: DataSource;

  beforeAll(async () => {
    wa = await WhatsappFake.start();
    twilio = await TwilioFake.start();
    tg = await TelegramFake.start({ localMode: true, botUsername: 'spring_sale_bot' });
    sink = await startSmtpSink();
    receiver = await new Receiver().start();
    sendingEnv({ SMTP_OUTBOUND_URL: sink.url, CAMPAIGN_POLL_INTERVAL_MS: '100' });
    stack = await startChannelStack();
    ds = stack.app.get(DataSource);
  });
  afterAll(async () => {
    await stack.stop();
    await Promise.all([wa.stop(), twilio.stop(), tg.stop(), sink.close(), receiver.stop()]);
  });

  const organization = async () => {
    const s = await createSession(stack.app, { plan: 'pro' });
    await liftLimits(stack.app, s.org.id);
    return s;
  };

  const multichannelBody = (listId: string, extra: Record<string, unknown> = {}) =>
    campaignBody(listId, {
      content: { whatsapp: { template: TEMPLATE }, sms: { text: SMS_TEXT } },
      ...extra,
    });

  const waitSent = (s: Session, id: string) =>
    waitFor(
      async () => {
        const r = await s.http.get(`${BASE}/${id}`).expect(200);
        return r.body.data.status === 'sent' ? r.body.data : null;
      },
      { what: `campaign ${id} sent`, timeoutMs: 90_000, everyMs: 200 },
    );

  /** The campaign once every message of it left the delivery queue. */
  const settled = (s: Session, id: string) =>
    waitFor(
      async () => {
        const { data } = (await s.http.get(`${BASE}/${id}`).expect(200)).body;
        const summaries = Object.values(data.byChannel) as { delivery: Record<string, number> }[];
        return summaries.every((c) => c.delivery.queued + c.delivery.deferred === 0) && data;
      },
      { what: `every message of campaign ${id} out of the queue`, timeoutMs: 60_000 },
    );

  /** The recipient rows of a campaign: contact → [channel, status]. */
  const recipientRows = async (id: string) => {
    const rows: { contact_id: string; channel: string | null; status: string }[] = await ds.query(
      `SELECT contact_id, channel, status FROM campaign_recipients WHERE campaign_id = $1`,
      [id],
    );
    return Object.fromEntries(rows.map((r) => [r.contact_id, [r.channel, r.status]]));
  };

  describe('a list preferring whatsapp, sms, email over 310 mixed contacts', () => {
    let s: Session;
    let list: SeededChannelList;
    let campaignId: string;
    const channelOf = (c: SeededContact) => MIX[c.cohort].on;
    const on = (channel: Channel) => list.contacts.filter((c) => channelOf(c) === channel);

    it('sends each reachable contact one message on its first reachable channel, counts the rest', async () => {
      s = await organization();
      await connect(s, whatsappAccount(wa, 'verify-mc-1'));
      // A long code's 1 a second is the account's default: this one is a short code.
      await connect(s, { ...twilioAccount(twilio, OUR_NUMBER), maxPerSecond: 100 });
      await s.http
        .post('/api/v1/user/webhook-endpoints', { url: receiver.url, events: ['campaign.sent'] })
        .expect(201);
      list = await seedChannelList(stack.app, s.org.id, ORDER, MIX);
      expect(list.contacts).toHaveLength(310);

      // No `channels`: the list's order applies.
      const created = await s.http.post(BASE, multichannelBody(list.listId)).expect(201);
      expect(created.body.data).toMatchObject({ channels: ORDER, channel: 'whatsapp' });
      campaignId = created.body.data.id;
      const sent = await s.http.post(`${BASE}/${campaignId}/send`).expect(202);
      expect(sent.body.data).toMatchObject({
        status: 'sending',
        recipientCount: 250,
        unreachableCount: 60,
      });
      expect(await waitSent(s, campaignId)).toMatchObject({
        recipientCount: 250,
        sentCount: 250,
        failedCount: 0,
        unreachableCount: 60,
      });

      // One row per contact: sent on its channel, or unreachable on none.
      expect(await recipientRows(campaignId)).toEqual(
        Object.fromEntries(
          list.contacts.map((c) => [
            c.id,
            channelOf(c) ? [channelOf(c), 'sent'] : [null, 'unreachable'],
          ]),
        ),
      );
      // One message per reachable contact, on that channel.
      const messages: { contact_id: string; channel: string }[] = await ds.query(
        `SELECT contact_id, channel FROM messages WHERE campaign_id = $1`,
        [campaignId],
      );
      expect(messages).toHaveLength(250);
      expect(Object.fromEntries(messages.map((m) => [m.contact_id, m.channel]))).toEqual(
        Object.fromEntries(list.contacts.filter(channelOf).map((c) => [c.id, channelOf(c)])),
      );

      const done = await settled(s, campaignId);
      // What each provider was given: exactly the contacts of its channel, once each.
      expect(sorted(wa.messages.map((m) => m.waId))).toEqual(
        sorted(on('whatsapp').map((c) => digits(c.whatsapp!))),
      );
      expect(
        wa.messages.every((m) => m.type === 'template' && m.template?.name === TEMPLATE.name),
      ).toBe(true);
      expect(sorted(twilio.messages.map((m) => m.to))).toEqual(
        sorted(on('sms').map((c) => c.sms!)),
      );
      expect(twilio.messages.every((m) => m.body === SMS_TEXT && m.from === OUR_NUMBER)).toBe(true);
      const mails = await sink.waitForMessages(80, 30_000);
      expect(sorted(mails.flatMap((m) => m.to))).toEqual(sorted(on('email').map((c) => c.email!)));

      const summary = (n: number, given: Record<string, number>) => ({
        recipients: n,
        pending: 0,
        held: 0,
        sent: n,
        failed: 0,
        delivery: delivery(given),
      });
      expect(done.byChannel).toEqual({
        whatsapp: summary(90, { sent: 90 }),
        sms: summary(80, { sent: 80 }),
        email: summary(80, { delivered: 80 }),
      });

      const events = await waitFor(
        () => {
          const got = receiver.requests
            .map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> })
            .filter((e) => e.type === 'campaign.sent');
          return got.length > 0 && got;
        },
        { what: 'campaign.sent' },
      );
      expect(events.map((e) => e.data)).toEqual([
        {
          campaign: {
            id: campaignId,
            name: 'Spring sale',
            recipientCount: 250,
            sentCount: 250,
            failedCount: 0,
            unreachableCount: 60,
            byChannel: {
              whatsapp: { recipients: 90, sent: 90, failed: 0 },
              sms: { recipients: 80, sent: 80, failed: 0 },
              email: { recipients: 80, sent: 80, failed: 0 },
            },
          },
        },
      ]);
    }, 180_000);

    it('attributes a conversion without `channel` to the channel that reached its contact', async () => {
      const convert = async (c: SeededContact, revenue: number) => {
        const body = { campaignId, contactId: c.id, orderId: `o-${c.id}`, revenue };
        const res = await s.http.post('/api/v1/user/conversions', body).expect(201);
        expect(res.body.data.channel).toBe(channelOf(c));
      };
      for (const c of on('whatsapp').slice(0, 3)) await convert(c, 10);
      for (const c of on('sms').slice(0, 2)) await convert(c, 20);
      await convert(on('email')[0], 5);

      const report = await s.http
        .get(`/api/v1/user/reports/revenue-attribution?campaignId=${campaignId}`)
        .expect(200);
      expect(report.body.data.overview).toMatchObject({ totalRevenue: 75, totalConversions: 6 });
      expect(report.body.data.byChannel).toEqual([
        { channel: 'sms', revenue: 40 },
        { channel: 'whatsapp', revenue: 30 },
        { channel: 'email', revenue: 5 },
      ]);
    });
  });

  it('skips the channel of a disabled provider account: its contacts fall through to the next', async () => {
    const s = await organization();
    const waProvider = await connect(s, whatsappAccount(wa, 'verify-mc-3'));
    await connect(s, twilioAccount(twilio, OUR_NUMBER));
    const disabled = await s.http
      .patch(`/api/v1/user/channel-providers/${waProvider}`, { status: 'disabled' })
      .expect(200);
    expect(disabled.body.data.status).toBe('disabled');
    const list = await seedChannelList(stack.app, s.org.id, ORDER, {
      whatsappAndSms: { count: 3, records: { whatsapp: 'verified', sms: 'verified' } },
      whatsappAndEmail: { count: 3, records: { whatsapp: 'verified', email: 'verified' } },
      whatsappOnly: { count: 2, records: { whatsapp: 'verified' } },
    });
    const cohort = (name: string) => list.contacts.filter((c) => c.cohort === name);
    const id = (await s.http.post(BASE, multichannelBody(list.listId)).expect(201)).body.data.id;
    const sent = await s.http.post(`${BASE}/${id}/send`).expect(202);
    expect(sent.body.data).toMatchObject({ recipientCount: 6, unreachableCount: 2 });
    await waitSent(s, id);
    expect(await recipientRows(id)).toEqual({
      ...Object.fromEntries(cohort('whatsappAndSms').map((c) => [c.id, ['sms', 'sent']])),
      ...Object.fromEntries(cohort('whatsappAndEmail').map((c) => [c.id, ['email', 'sent']])),
      ...Object.fromEntries(cohort('whatsappOnly').map((c) => [c.id, [null, 'unreachable']])),
    });
    const done = await settled(s, id);
    expect(Object.keys(done.byChannel).sort()).toEqual(['email', 'sms']);
    expect(done.byChannel.sms).toMatchObject({ recipients: 3, sent: 3 });
    expect(done.byChannel.email).toMatchObject({ recipients: 3, sent: 3 });

    const numbers = new Set(list.contacts.map((c) => digits(c.whatsapp!)));
    const askedTo = (r: { body: unknown }) => digits(String((r.body as { to?: string })?.to ?? ''));
    expect(wa.requests.filter((r) => numbers.has(askedTo(r)))).toEqual([]);
    const texted = cohort('whatsappAndSms').map((c) => c.sms!);
    expect(sorted(twilio.messages.filter((m) => texted.includes(m.to)).map((m) => m.to))).toEqual(
      sorted(texted),
    );
    const mailed = cohort('whatsappAndEmail').map((c) => c.email!);
    const mails = await waitFor(
      () => {
        const got = sink.messages.flatMap((m) => m.to).filter((to) => mailed.includes(to));
        return got.length >= 3 && got;
      },
      { what: 'three emails' },
    );
    expect(sorted(mails)).toEqual(sorted(mailed));
  }, 60_000);

  it('a Telegram record never linked is unreachable, not an error; nobody reachable is a 409', async () => {
    const s = await organization();
    await connect(s, telegramAccount(tg));
    const list = await seedChannelList(stack.app, s.org.id, ['telegram'], {
      unlinked: { count: 1, records: { telegram: 'unlinked' } },
    });
    const body = {
      name: 'Telegram only',
      listId: list.listId,
      channels: ['telegram'],
      content: { telegram: { text: 'Spring sale' } },
    };
    const id = (await s.http.post(BASE, body).expect(201)).body.data.id;
    const refused = await s.http.post(`${BASE}/${id}/send`).expect(409);
    expect(refused.body).toEqual({
      success: false,
      message: 'Campaign has no recipients: none of its 1 contacts can be reached on telegram',
      code: 'E_CAMPAIGN_NOT_SENDABLE',
    });
    expect((await s.http.get(`${BASE}/${id}`).expect(200)).body.data.status).toBe('draft');
    expect(await recipientRows(id)).toEqual({});

    // A second member whose chat opened the bot's deep link: now the campaign goes out to it, and
    // the unlinked one is counted unreachable.
    const contactId = (
      await s.http.post('/api/v1/user/contacts', { firstName: 'Linked' }).expect(201)
    ).body.data.id as string;
    const record = await s.http
      .post(`/api/v1/user/contacts/${contactId}/telegram`, { phoneNumber: '+4915100000777' })
      .expect(201);
    const link = await s.http
      .post(`/api/v1/user/contacts/${contactId}/telegram/${record.body.data.id}/link`, {})
      .expect(200);
    const opened = await tg.openDeepLink(new URL(link.body.data.url).searchParams.get('start'));
    expect(opened.deliveries.map((d) => d.status)).toEqual([200]);
    await ds.query(
      `INSERT INTO contact_list_memberships (organization_id, contact_id, contact_list_id, status)
       VALUES ($1, $2, $3, 'subscribed')`,
      [s.org.id, contactId, list.listId],
    );
    const sent = await s.http.post(`${BASE}/${id}/send`).expect(202);
    expect(sent.body.data).toMatchObject({ recipientCount: 1, unreachableCount: 1 });
    expect(await waitSent(s, id)).toMatchObject({ sentCount: 1, failedCount: 0 });
    expect(await recipientRows(id)).toEqual({
      [list.contacts[0].id]: [null, 'unreachable'],
      [contactId]: ['telegram', 'sent'],
    });
    const got = await waitFor(() => tg.messages.length > 0 && tg.messages, {
      what: 'the Telegram message',
    });
    expect(got).toEqual([expect.objectContaining({ chatId: opened.chatId, text: 'Spring sale' })]);
  }, 60_000);

  describe('validation', () => {
    let s: Session;
    let listId: string;
    beforeAll(async () => {
      s = await organization();
      listId = (await seedChannelList(stack.app, s.org.id, ['email'], {})).listId;
    });

    it('channels ["sms"] without content.sms → 422 naming content.sms', async () => {
      const res = await s.http
        .post(BASE, campaignBody(listId, { channels: ['sms'], content: {} }))
        .expect(422);
      expect(res.body.code).toBe('E_VALIDATION_ERROR');
      expect(res.body.errors).toEqual([
        expect.objectContaining({ field: 'content.sms', rule: 'required' }),
      ]);
    });

    it('channels ["sms", "email"] without subject → 422 naming subject', async () => {
      const res = await s.http
        .post(
          BASE,
          campaignBody(listId, {
            channels: ['sms', 'email'],
            content: { sms: { text: SMS_TEXT } },
            subject: undefined,
          }),
        )
        .expect(422);
      expect(res.body.errors).toEqual([
        expect.objectContaining({ field: 'subject', rule: 'required' }),
      ]);
    });
  });
});
