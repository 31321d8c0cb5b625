// GET /api/v1/user/messages and /messages/{jobId} (§8): tenancy, filters, paging, the 500-row
// caps, and the worker's retention purge.
import { INestApplication } from '@nestjs/common';
import { TestingModule } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { OrganizationService } from '@app/domain';
import { createTestApp } from '../support/app';
import { createSession, Session } from '../support/session';
import { startSmtpSink, SmtpSink } from './support/smtp-sink';
import { basicEmail, sendingEnv, startWorker, waitForMessage } from './support/sending';
import { waitFor } from '../support/wait-for';

describe('Message log', () => {
  let sink: SmtpSink;
  let app: INestApplication;
  let worker: TestingModule;
  let s: Session;
  let ds: DataSource;
  let CAMPAIGN: string;

  beforeAll(async () => {
    sink = await startSmtpSink();
    sendingEnv({ SMTP_OUTBOUND_URL: sink.url, MESSAGE_RETENTION_INTERVAL_MS: '1000' });
    app = await createTestApp();
    worker = await startWorker();
    s = await createSession(app, { plan: 'pro' });
    ds = app.get(DataSource);
    // A send may name only a campaign of its own organization.
    const list = await s.http.post('/api/v1/user/contact-lists', { name: 'Log list' }).expect(201);
    const campaign = await s.http
      .post('/api/v1/user/campaigns', {
        name: 'Log campaign',
        subject: 'S',
        from: 'sender@example.test',
        text: 'x',
        listId: list.body.data.id,
      })
      .expect(201);
    CAMPAIGN = campaign.body.data.id;
  });
  afterAll(async () => {
    await worker.close();
    await app.close();
    await sink.close();
  });

  async function send(body: Record<string, unknown>): Promise<string> {
    const res = await s.http.post('/api/v1/send', basicEmail(body)).expect(202);
    return res.body.data.jobId;
  }

  it('lists messages newest first with filters and paging', async () => {
    const a = await send({ to: 'Alpha@Example.test', campaignId: CAMPAIGN });
    const b = await send({ to: 'beta@example.test' });
    const c = await send({ to: 'gamma@example.test', cc: 'alpha@example.test' });
    for (const j of [a, b, c]) await waitForMessage(s.http, j, (m) => m.status === 'delivered');

    const all = await s.http.get('/api/v1/user/messages?limit=2').expect(200);
    expect(all.body.data.map((m: { jobId: string }) => m.jobId)).toEqual([c, b]);
    expect(all.body.meta).toMatchObject({
      total: 3,
      perPage: 2,
      currentPage: 1,
      lastPage: 2,
      nextPageUrl: '/api/v1/user/messages?limit=2&page=2',
    });
    expect(all.body.data[0]).toMatchObject({
      jobId: c,
      status: 'delivered',
      recipients: ['gamma@example.test', 'alpha@example.test'],
      retentionDays: 30,
    });
    expect(all.body.data[0].deliveryAttempts).toBeUndefined();

    const byRecipient = await s.http
      .get('/api/v1/user/messages?recipient=ALPHA@example.test')
      .expect(200);
    expect(byRecipient.body.data.map((m: { jobId: string }) => m.jobId)).toEqual([c, a]);
    const byCampaign = await s.http.get(`/api/v1/user/messages?campaignId=${CAMPAIGN}`).expect(200);
    expect(byCampaign.body.data.map((m: { jobId: string }) => m.jobId)).toEqual([a]);
    const byStatus = await s.http.get('/api/v1/user/messages?status=bounced').expect(200);
    expect(byStatus.body.data).toEqual([]);
    const delivered = await s.http.get('/api/v1/user/messages?status=delivered').expect(200);
    expect(delivered.body.meta.total).toBe(3);

    const [row] = await ds.query(`SELECT created_at FROM messages WHERE job_id = $1`, [b]);
    const from = encodeURIComponent(new Date(row.created_at).toISOString());
    const since = await s.http.get(`/api/v1/user/messages?from=${from}`).expect(200);
    expect(since.body.data.map((m: { jobId: string }) => m.jobId)).toEqual([c, b]);
    const until = await s.http.get(`/api/v1/user/messages?to=${from}`).expect(200);
    expect(until.body.data.map((m: { jobId: string }) => m.jobId)).toEqual([b, a]);

    const bad = await s.http.get('/api/v1/user/messages?status=lost&limit=500').expect(422);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'limit',
      'status',
    ]);
  });

  it('keeps organizations apart: another organization gets 404 and an empty list', async () => {
    const jobId = await send({ to: 'private@example.test' });
    const other = await createSession(app);
    const res = await other.http.get(`/api/v1/user/messages/${jobId}`).expect(404);
    expect(res.body.code).toBe('E_ROW_NOT_FOUND');
    const list = await other.http.get('/api/v1/user/messages').expect(200);
    expect(list.body.data).toEqual([]);
  });

  it('looks up any job id of 1-255 characters, refuses longer ones, and requires messages:read', async () => {
    for (const jobId of ['job_does_not_exist', 'not-a-job', 'x', 'j'.repeat(255)]) {
      const missing = await s.http.get(`/api/v1/user/messages/${jobId}`).expect(404);
      expect(missing.body).toEqual({
        success: false,
        message: 'Message not found',
        code: 'E_ROW_NOT_FOUND',
      });
    }
    await s.http.get('/api/v1/user/messages/job_01ARZ3NDEKTSV4RRFFQ69G5FAV').expect(404);
    const long = await s.http.get(`/api/v1/user/messages/${'j'.repeat(256)}`).expect(422);
    expect(long.body.errors).toEqual([
      expect.objectContaining({ field: 'jobId', rule: 'maxLength' }),
    ]);
    const nul = await s.http.get('/api/v1/user/messages/job%00x').expect(422);
    expect(nul.body.errors).toEqual([expect.objectContaining({ field: 'jobId', rule: 'type' })]);
    const sender = await createSession(app, { scopes: ['messages:send'] });
    await sender.http.get('/api/v1/user/messages').expect(403);
  });

  it('returns at most 500 attempts and 500 events, oldest first', async () => {
    const jobId = await send({ to: 'many@example.test' });
    await waitForMessage(s.http, jobId, (m) => m.status === 'delivered');
    const [{ id }] = await ds.query(`SELECT id FROM messages WHERE job_id = $1`, [jobId]);
    await ds.query(
      `INSERT INTO message_attempts (message_id, organization_id, recipient_idx, status, smtp_code,
         retry_count, attempted_at)
       SELECT $1, $2, 0, 'deferred', 451, g, now() - interval '1 day' + g * interval '1 second'
         FROM generate_series(1, 510) g`,
      [id, s.org.id],
    );
    await ds.query(
      `INSERT INTO engagement_events (organization_id, message_id, recipient_idx, type, occurred_at)
       SELECT $2, $1, 0, 'opened', now() - interval '1 day' + g * interval '1 second'
         FROM generate_series(1, 505) g`,
      [id, s.org.id],
    );
    const res = await s.http.get(`/api/v1/user/messages/${jobId}`).expect(200);
    const { deliveryAttempts: attempts, engagementEvents: events } = res.body.data;
    expect(attempts).toHaveLength(500);
    expect(events).toHaveLength(500);
    expect(attempts[0].retryCount).toBe(1);
    expect(attempts[499].retryCount).toBe(500);
    const times = attempts.map((a: { attemptedAt: string }) => Date.parse(a.attemptedAt));
    expect([...times].sort((x, y) => x - y)).toEqual(times);
    expect(events[0].recipient).toBe('many@example.test');
  });

  it('purges messages older than the organization retention in the worker', async () => {
    const oldJob = await send({ to: 'old@example.test' });
    const recentJob = await send({ to: 'recent@example.test' });
    const keeper = await createSession(app, { plan: 'pro' });
    await app.get(OrganizationService).update(keeper.org.id, { messageRetentionDays: 60 });
    const kept = (await keeper.http.post('/api/v1/send', basicEmail()).expect(202)).body.data.jobId;
    for (const j of [oldJob, recentJob]) {
      await waitForMessage(s.http, j, (m) => m.status === 'delivered');
    }
    await waitForMessage(keeper.http, kept, (m) => m.status === 'delivered');
    const [{ id: oldId }] = await ds.query(`SELECT id FROM messages WHERE job_id = $1`, [oldJob]);
    await ds.query(
      `UPDATE messages SET created_at = now() - interval '31 days' WHERE job_id = ANY($1)`,
      [[oldJob, kept]],
    );
    await ds.query(
      `UPDATE messages SET created_at = now() - interval '29 days' WHERE job_id = $1`,
      [recentJob],
    );
    // The worker's retention timer (every second in this file) removes the expired message.
    await waitFor(
      async () => (await s.http.get(`/api/v1/user/messages/${oldJob}`)).status === 404,
      { what: 'retention purge' },
    );
    const [left] = await ds.query(
      `SELECT (SELECT count(*)::int FROM message_attempts WHERE message_id = $1) AS attempts,
              (SELECT count(*)::int FROM message_recipients WHERE message_id = $1) AS recipients`,
      [oldId],
    );
    expect(left).toEqual({ attempts: 0, recipients: 0 });
    await s.http.get(`/api/v1/user/messages/${recentJob}`).expect(200);
    await keeper.http.get(`/api/v1/user/messages/${kept}`).expect(200);
  });
});
