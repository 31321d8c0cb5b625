// Acceptance 3 (issue 9): the worker's fan-out through the organization sending limits, with the
// clock injected in the api and the in-process worker (the SendingLimiter reads it too).
import { INestApplication } from '@nestjs/common';
import { TestingModule, TestingModuleBuilder } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { CampaignFanoutService, Clock, fieldCipher, SendingLimiter } from '@app/domain';
import { createTestApp } from '../support/app';
import { ManualClock } from '../support/clock';
import { createSession, Session } from '../support/session';
import { sendingEnv, startWorker } from '../sending/support/sending';
import { startSmtpSink, SmtpSink } from '../sending/support/smtp-sink';
import { campaignBody, seedList } from './fixtures';
import { waitFor } from '../support/wait-for';

const BASE = '/api/v1/user/campaigns';
const START = new Date('2030-01-07T09:00:00.000Z');

describe('Campaign fan-out (worker)', () => {
  let sink: SmtpSink;
  let clock: ManualClock;
  let app: INestApplication;
  let worker: TestingModule;
  let ds: DataSource;

  beforeAll(async () => {
    sink = await startSmtpSink();
    sendingEnv({ SMTP_OUTBOUND_URL: sink.url, CAMPAIGN_POLL_INTERVAL_MS: '100' });
    clock = new ManualClock(START);
    const override = (b: TestingModuleBuilder) => b.overrideProvider(Clock).useValue(clock);
    app = await createTestApp({ override });
    worker = await startWorker(override);
    ds = app.get(DataSource);
  });
  afterEach(() => {
    sink.onRcpt = undefined;
  });
  afterAll(async () => {
    await worker.close();
    await app.close();
    await sink.close();
  });

  /** Limits of the organization: perMinute as given, the other windows out of the way. */
  const setLimits = (orgId: string, perMinute: number) =>
    ds.query(
      `UPDATE organizations SET limit_per_second = 100000, limit_per_minute = $2,
              limit_per_hour = 1000000, limit_per_day = 1000000, limit_per_month = 10000000
        WHERE id = $1`,
      [orgId, perMinute],
    );

  /** Settled: no recipient of the campaign is due at the clock's now (all sent or held later). */
  const settled = (campaignId: string) =>
    waitFor(
      async () => {
        const [r]: { due: number }[] = await ds.query(
          `SELECT count(*)::int AS due FROM campaign_recipients
            WHERE campaign_id = $1 AND status IN ('pending','held') AND next_attempt_at <= $2`,
          [campaignId, clock.now()],
        );
        return r.due === 0;
      },
      { what: `campaign ${campaignId} settled`, timeoutMs: 30_000 },
    );

  const sentSoFar = async (campaignId: string) => {
    const [r]: { n: number }[] = await ds.query(
      `SELECT count(*)::int AS n FROM messages WHERE campaign_id = $1`,
      [campaignId],
    );
    return r.n;
  };

  it('sends a 500-contact list under perMinute 100 over five one-minute windows, none twice', async () => {
    clock.set(START);
    const s = await createSession(app, { plan: 'pro' });
    await setLimits(s.org.id, 100);
    const list = await seedList(app, s.org.id, { subscribed: 500, unsubscribed: 3 });
    await s.http
      .post('/api/v1/user/webhook-endpoints', {
        url: 'https://hooks.example.com/campaigns',
        events: ['campaign.sent'],
      })
      .expect(201);
    const created = await s.http.post(BASE, campaignBody(list.listId)).expect(201);
    const id: string = created.body.data.id;
    const sent = await s.http.post(`${BASE}/${id}/send`).expect(202);
    expect(sent.body.data).toMatchObject({ status: 'sending', recipientCount: 500 });

    const perStep: number[] = [];
    for (let minute = 0; minute < 6; minute++) {
      await settled(id);
      perStep.push(await sentSoFar(id));
      clock.advance(60_000);
    }
    // 100 in each of the first five minutes, nothing after.
    expect(perStep).toEqual([100, 200, 300, 400, 500, 500]);

    const [totals]: { n: number; contacts: number; sources: string[] }[] = await ds.query(
      `SELECT count(*)::int AS n, count(DISTINCT contact_id)::int AS contacts,
              array_agg(DISTINCT source) AS sources
         FROM messages WHERE campaign_id = $1 AND organization_id = $2`,
      [id, s.org.id],
    );
    expect(totals).toEqual({ n: 500, contacts: 500, sources: ['campaign'] });
    const contacts: { contact_id: string }[] = await ds.query(
      `SELECT contact_id FROM messages WHERE campaign_id = $1`,
      [id],
    );
    expect(new Set(contacts.map((c) => c.contact_id))).toEqual(new Set(list.contactIds));
    const windows: { minute: Date; n: number }[] = await ds.query(
      `SELECT date_trunc('minute', created_at) AS minute, count(*)::int AS n
         FROM messages WHERE campaign_id = $1 GROUP BY 1 ORDER BY 1`,
      [id],
    );
    expect(windows.map((w) => [w.minute.toISOString(), w.n])).toEqual(
      [0, 1, 2, 3, 4].map((m) => [new Date(START.getTime() + m * 60_000).toISOString(), 100]),
    );

    const done = await waitFor(
      async () => {
        const r = await s.http.get(`${BASE}/${id}`);
        return r.body.data.status === 'sent' ? r.body.data : null;
      },
      { what: 'campaign sent' },
    );
    expect(done).toMatchObject({ recipientCount: 500, sentCount: 500, failedCount: 0 });
    expect(done.completedAt).toBe(new Date(START.getTime() + 4 * 60_000).toISOString());
    const [recipients]: { sent: number; with_job: number }[] = await ds.query(
      `SELECT count(*) FILTER (WHERE status = 'sent')::int AS sent,
              count(job_id)::int AS with_job
         FROM campaign_recipients WHERE campaign_id = $1`,
      [id],
    );
    expect(recipients).toEqual({ sent: 500, with_job: 500 });

    // campaign.sent through the webhook event bus, with the final counters.
    const events: { data: string }[] = await ds.query(
      `SELECT data FROM webhook_deliveries WHERE organization_id = $1 AND type = 'campaign.sent'`,
      [s.org.id],
    );
    expect(events).toHaveLength(1);
    expect(JSON.parse(fieldCipher().decrypt(events[0].data))).toEqual({
      campaign: {
        id,
        name: 'Spring sale',
        recipientCount: 500,
        sentCount: 500,
        failedCount: 0,
        unreachableCount: 0,
        byChannel: { email: { recipients: 500, sent: 500, failed: 0 } },
      },
    });

    // The messages went out through the delivery worker.
    const mails = await sink.waitForMessages(500, 60_000);
    const to = new Set(mails.flatMap((m) => m.to));
    expect(to.size).toBe(500);
  }, 180_000);

  const waitSent = (s: Session, id: string) =>
    waitFor(
      async () => {
        const r = await s.http.get(`${BASE}/${id}`);
        return r.body.data.status === 'sent' ? r.body.data : null;
      },
      { what: `campaign ${id} sent` },
    );

  const campaignTo = async (s: Session, listId: string, segmentId: string) => {
    const created = await s.http
      .post(BASE, { ...campaignBody(listId), listId: undefined, segmentId })
      .expect(201);
    expect(created.body.data).toMatchObject({ segmentId, listId: null });
    return created.body.data.id as string;
  };

  const messagedContacts = async (campaignId: string) => {
    const rows: { contact_id: string }[] = await ds.query(
      `SELECT contact_id FROM messages WHERE campaign_id = $1`,
      [campaignId],
    );
    return rows.map((r) => r.contact_id).sort();
  };

  it('a campaign to a static segment sends to the segment’s members only', async () => {
    clock.set(new Date(START.getTime() + 3600_000));
    const s = await createSession(app, { plan: 'pro' });
    await setLimits(s.org.id, 1000);
    const list = await seedList(app, s.org.id, { subscribed: 6 });
    const members = list.contactIds.slice(0, 3);
    sink.onRcpt = (address) =>
      address === `c-${members[0]}@example.test`
        ? { code: 550, message: '5.1.1 No such user' }
        : null;
    const seg = await s.http
      .post('/api/v1/user/contact-segments', { name: 'VIP', type: 'static', contactIds: members })
      .expect(201);
    const id = await campaignTo(s, list.listId, seg.body.data.id);
    const sent = await s.http.post(`${BASE}/${id}/send`).expect(202);
    expect(sent.body.data.recipientCount).toBe(3);
    expect(await waitSent(s, id)).toMatchObject({
      recipientCount: 3,
      sentCount: 3,
      failedCount: 0,
    });
    expect(await messagedContacts(id)).toEqual([...members].sort());
    // Handed over is not delivered: the campaign shows what became of its messages.
    const delivery = await waitFor(
      async () => {
        const { data } = (await s.http.get(`${BASE}/${id}`).expect(200)).body;
        return data.delivery.queued === 0 && data.delivery;
      },
      { what: 'every campaign message out of the queue' },
    );
    expect(delivery).toEqual({
      queued: 0,
      deferred: 0,
      sent: 0,
      delivered: 2,
      partially_delivered: 0,
      bounced: 1,
      failed: 0,
      suppressed: 0,
    });
  });

  it('a campaign to a dynamic segment sends to the contacts its rules select at send time', async () => {
    clock.set(new Date(START.getTime() + 3600_000));
    const s = await createSession(app, { plan: 'pro' });
    await setLimits(s.org.id, 1000);
    const list = await seedList(app, s.org.id, { subscribed: 5 });
    const seg = await s.http
      .post('/api/v1/user/contact-segments', {
        name: 'Targets',
        type: 'dynamic',
        rules: {
          operator: 'and',
          conditions: [{ field: 'firstName', operator: 'equals', value: 'target' }],
        },
      })
      .expect(201);
    const id = await campaignTo(s, list.listId, seg.body.data.id);
    const targets = list.contactIds.slice(1, 3);
    await ds.query(`UPDATE contacts SET first_name = 'target' WHERE id = ANY($1::uuid[])`, [
      targets,
    ]);
    await s.http.post(`${BASE}/${id}/send`).expect(202);
    expect(await waitSent(s, id)).toMatchObject({
      recipientCount: 2,
      sentCount: 2,
      failedCount: 0,
    });
    expect(await messagedContacts(id)).toEqual([...targets].sort());
  });

  it('a segment of another organization is a 404', async () => {
    const s = await createSession(app);
    const other = await createSession(app);
    const list = await seedList(app, s.org.id, { subscribed: 1 });
    const seg = await other.http
      .post('/api/v1/user/contact-segments', { name: 'Theirs', type: 'static', contactIds: [] })
      .expect(201);
    const res = await s.http
      .post(BASE, { ...campaignBody(list.listId), listId: undefined, segmentId: seg.body.data.id })
      .expect(404);
    expect(res.body.message).toBe('Segment not found');
  });

  it('a message that already exists for a recipient (a crash after sending) is never sent again', async () => {
    clock.set(new Date(START.getTime() + 7200_000));
    const s = await createSession(app, { plan: 'pro' });
    await setLimits(s.org.id, 1000);
    const list = await seedList(app, s.org.id, { subscribed: 2 });
    const created = await s.http.post(BASE, campaignBody(list.listId)).expect(201);
    const id: string = created.body.data.id;
    // The recipient rows as a send left them, before the worker ran: materialise through the
    // service, then record a message for the first contact as a crashed worker would have.
    const fanout = worker.get(CampaignFanoutService);
    await ds.query(
      `INSERT INTO messages (organization_id, job_id, message_id, source, sender_address, campaign_id,
                             contact_id, content, recipient_count, status)
       VALUES ($1, 'job_crashed', '<crashed@shop.example>', 'campaign', 'news@shop.example', $2, $3,
               'x', 1, 'delivered')`,
      [s.org.id, id, list.contactIds[0]],
    );
    await s.http.post(`${BASE}/${id}/send`).expect(202);
    await fanout.runDue(id);
    const done = await waitFor(
      async () => {
        const r = await s.http.get(`${BASE}/${id}`);
        return r.body.data.status === 'sent' ? r.body.data : null;
      },
      { what: 'campaign sent' },
    );
    expect(done).toMatchObject({ recipientCount: 2, sentCount: 2, failedCount: 0 });
    const rows: { contact_id: string; job_id: string }[] = await ds.query(
      `SELECT contact_id, job_id FROM messages WHERE campaign_id = $1 ORDER BY job_id`,
      [id],
    );
    expect(rows).toHaveLength(2);
    const [first]: { job_id: string }[] = await ds.query(
      `SELECT job_id FROM campaign_recipients WHERE campaign_id = $1 AND contact_id = $2`,
      [id, list.contactIds[0]],
    );
    expect(first.job_id).toBe('job_crashed');
  });

  it('a recipient held past 24 h after the start is recorded failed', async () => {
    const start = new Date(START.getTime() + 10_800_000);
    clock.set(start);
    const s = await createSession(app, { plan: 'pro' });
    await setLimits(s.org.id, 1);
    const list = await seedList(app, s.org.id, { subscribed: 2 });
    const created = await s.http.post(BASE, campaignBody(list.listId)).expect(201);
    const id: string = created.body.data.id;
    await s.http.post(`${BASE}/${id}/send`).expect(202);
    await settled(id);
    expect(await sentSoFar(id)).toBe(1);
    const [held]: { status: string; next_attempt_at: Date; error: string }[] = await ds.query(
      `SELECT status, next_attempt_at, error FROM campaign_recipients
        WHERE campaign_id = $1 AND status <> 'sent'`,
      [id],
    );
    expect(held).toMatchObject({ status: 'held', error: 'Rate limit exceeded: perMinute' });
    expect(held.next_attempt_at.toISOString()).toBe(
      new Date(start.getTime() + 60_000).toISOString(),
    );
    // 24 h + 10 s after the start the held recipient is due; the organization's minute is used
    // up, so its next try (the next minute) falls after the 24 h end: failed. The row is parked
    // while the clock moves so the poll cannot take it before the minute is used up.
    await ds.query(
      `UPDATE campaign_recipients SET next_attempt_at = 'infinity' WHERE campaign_id = $1 AND status = 'held'`,
      [id],
    );
    clock.set(new Date(start.getTime() + 86_400_000 + 10_000));
    await worker.get(SendingLimiter).consume(s.org.id, { requests: 1, recipients: 1 });
    await ds.query(
      `UPDATE campaign_recipients SET next_attempt_at = $2 WHERE campaign_id = $1 AND status = 'held'`,
      [id, clock.now()],
    );
    await worker.get(CampaignFanoutService).runDue(id);
    const done = await waitFor(
      async () => {
        const r = await s.http.get(`${BASE}/${id}`);
        return r.body.data.status === 'sent' ? r.body.data : null;
      },
      { what: 'campaign sent' },
    );
    expect(done).toMatchObject({ recipientCount: 2, sentCount: 1, failedCount: 1 });
    const [failed]: { status: string; error: string }[] = await ds.query(
      `SELECT status, error FROM campaign_recipients WHERE campaign_id = $1 AND status <> 'sent'`,
      [id],
    );
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/^Rate limit exceeded: perMinute; not sent within 24 hours$/);
  });

  it('holds a contact inside the quiet hours of its own time zone until they end, and sends the others', async () => {
    // 09:00 UTC: 18:00 in Tokyo (outside 21:00–08:00), 04:00 in New York (inside, until 13:00 UTC).
    clock.set(START);
    const s = await createSession(app, { plan: 'pro' });
    await setLimits(s.org.id, 100_000);
    const list = await seedList(app, s.org.id, { subscribed: 3 });
    const [tokyo, newYork, none] = list.contactIds;
    for (const [id, zone] of [
      [tokyo, 'Asia/Tokyo'],
      [newYork, 'America/New_York'],
    ]) {
      await ds.query(`UPDATE contacts SET timezone = $2 WHERE id = $1`, [id, zone]);
    }
    const bad = await s.http
      .post(BASE, campaignBody(list.listId, { quietHours: { start: '25:00', end: '08:00' } }))
      .expect(422);
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'quietHours.start' })]);
    const created = await s.http
      .post(BASE, campaignBody(list.listId, { quietHours: { start: '21:00', end: '08:00' } }))
      .expect(201);
    expect(created.body.data.quietHours).toEqual({ start: '21:00', end: '08:00' });
    const id = created.body.data.id as string;
    await s.http.post(`${BASE}/${id}/send`).expect(202);
    await settled(id);
    const rows: { contact_id: string; status: string; next_attempt_at: Date; error: string }[] =
      await ds.query(
        `SELECT contact_id, status, next_attempt_at, error FROM campaign_recipients
          WHERE campaign_id = $1`,
        [id],
      );
    const of = (contactId: string) => rows.find((r) => r.contact_id === contactId)!;
    expect(of(tokyo).status).toBe('sent');
    // No time zone: UTC, 09:00, outside the window.
    expect(of(none).status).toBe('sent');
    expect(of(newYork)).toMatchObject({
      status: 'held',
      next_attempt_at: new Date('2030-01-07T13:00:00.000Z'),
      error: "Quiet hours in the contact's time zone",
    });
    expect(await sentSoFar(id)).toBe(2);

    // 08:00 in New York: the contact gets its message and the campaign completes.
    clock.set(new Date('2030-01-07T13:00:00.000Z'));
    await worker.get(CampaignFanoutService).runDue(id);
    const done = await waitFor(
      async () => {
        const r = await s.http.get(`${BASE}/${id}`);
        return r.body.data.status === 'sent' ? r.body.data : null;
      },
      { what: 'campaign sent' },
    );
    expect(done).toMatchObject({ recipientCount: 3, sentCount: 3, failedCount: 0 });
    expect(await sentSoFar(id)).toBe(3);
  });
});
