// POST /api/v1/send payload rules (§8) and the durable path: what is committed, what is queued.
import { getQueueToken } from '@nestjs/bull';
import { INestApplication } from '@nestjs/common';
import type { Queue } from 'bull';
import { DataSource } from 'typeorm';
import { QUEUES } from '@app/domain';
import { createTestApp } from '../support/app';
import { createSession, Session } from '../support/session';
import { basicEmail, sendingEnv } from './support/sending';

describe('POST /api/v1/send payload', () => {
  let app: INestApplication;
  let s: Session;

  beforeAll(async () => {
    sendingEnv();
    app = await createTestApp();
    s = await createSession(app, { plan: 'enterprise' });
  });
  afterAll(async () => {
    await app.close();
  });

  async function refused(body: Record<string, unknown>, status = 422) {
    const res = await s.http.post('/api/v1/send', body).expect(status);
    return res.body;
  }

  it('requires html or text', async () => {
    const body = await refused(basicEmail({ text: undefined }));
    expect(body.code).toBe('E_VALIDATION_ERROR');
    expect(body.errors).toEqual([
      { field: 'html', rule: 'required', message: 'html or text is required' },
    ]);
  });

  it('refuses header injection in header names, values and the subject', async () => {
    let body = await refused(
      basicEmail({ headers: { 'X-Evil': 'a\r\nBcc: victim@example.test' } }),
    );
    expect(body.errors).toEqual([
      { field: 'headers.X-Evil', rule: 'type', message: expect.stringContaining('CR or LF') },
    ]);
    body = await refused(basicEmail({ headers: { 'X-Bad Name:': 'v' } }));
    expect(body.errors[0]).toMatchObject({ field: 'headers.X-Bad Name:', rule: 'type' });
    body = await refused(basicEmail({ headers: { Bcc: 'victim@example.test' } }));
    expect(body.errors[0]).toMatchObject({ field: 'headers.Bcc', rule: 'unknown' });
    body = await refused(basicEmail({ subject: 'Hi\nBcc: victim@example.test' }));
    expect(body.errors[0]).toMatchObject({ field: 'subject', rule: 'type' });
    body = await refused(basicEmail({ from: 'Evil\r\nBcc: x@y.test <evil@sender.test>' }));
    expect(body.errors[0]).toMatchObject({ field: 'from', rule: 'email' });
  });

  it('accepts the from forms and refuses anything else', async () => {
    for (const from of [
      'plain@sender.test',
      'Plain Name <plain@sender.test>',
      '"Quoted, Name" <plain@sender.test>',
      { email: 'plain@sender.test', name: 'Object Name' },
      { email: 'plain@sender.test' },
    ]) {
      await s.http.post('/api/v1/send', basicEmail({ from })).expect(202);
    }
    for (const from of [
      'not-an-address',
      'Name <not-an-address>',
      { email: 'a@b.test', x: 1 },
      42,
    ]) {
      const body = await refused(basicEmail({ from }));
      expect(body.errors).toEqual([expect.objectContaining({ field: 'from', rule: 'email' })]);
    }
    const body = await refused(basicEmail({ to: ['ok@example.test', 'broken@'] }));
    expect(body.errors).toEqual([expect.objectContaining({ field: 'to', rule: 'email' })]);
  });

  it('allows at most 50 recipients across To, Cc and Bcc', async () => {
    const addrs = (n: number, p: string) =>
      Array.from({ length: n }, (_, i) => `${p}${i}@example.test`);
    const ok = await s.http
      .post(
        '/api/v1/send',
        basicEmail({ to: addrs(20, 't'), cc: addrs(20, 'c'), bcc: addrs(10, 'b') }),
      )
      .expect(202);
    expect(ok.body.data.recipients).toHaveLength(50);
    const body = await refused(
      basicEmail({ to: addrs(20, 't'), cc: addrs(20, 'c'), bcc: addrs(11, 'b') }),
    );
    expect(body.errors).toEqual([
      { field: 'to', rule: 'max', message: 'At most 50 recipients (To + Cc + Bcc) per message' },
    ]);
  });

  it('checks attachments: base64 content and a 10 MiB total', async () => {
    let body = await refused(
      basicEmail({ attachments: [{ filename: 'a.txt', content: 'not base64!' }] }),
    );
    expect(body.errors).toEqual([
      { field: 'attachments.0.content', rule: 'type', message: 'content must be base64' },
    ]);
    const big = Buffer.alloc(10 * 1024 * 1024 + 1, 7).toString('base64');
    body = await refused(basicEmail({ attachments: [{ filename: 'big.bin', content: big }] }));
    expect(body.errors).toEqual([
      { field: 'attachments', rule: 'max', message: 'Attachments may total at most 10 MiB' },
    ]);
  });

  it('answers 413 above the 15 MiB body limit and 422 for an unknown field', async () => {
    const huge = 'x'.repeat(15 * 1024 * 1024 + 10);
    const res = await s.http.post('/api/v1/send', basicEmail({ text: huge }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      success: false,
      message: 'Request body is larger than 15 MiB',
      code: 'E_VALIDATION_ERROR',
      errors: [{ field: 'body', rule: 'max', message: 'Request body is larger than 15 MiB' }],
    });
    const body = await refused(basicEmail({ priority: 'high' }));
    expect(body.errors).toEqual([expect.objectContaining({ field: 'priority', rule: 'unknown' })]);
  });

  it("answers 404 for a campaign or contact that is not the organization's own", async () => {
    const other = await createSession(app);
    const list = await other.http.post('/api/v1/user/contact-lists', { name: 'L' }).expect(201);
    const theirCampaign = await other.http
      .post('/api/v1/user/campaigns', {
        name: 'Theirs',
        subject: 'S',
        from: 'them@sender.test',
        text: 'x',
        listId: list.body.data.id,
      })
      .expect(201);
    const theirContact = await other.http
      .post('/api/v1/user/contacts', { firstName: 'Theirs' })
      .expect(201);
    const ours = await s.http.post('/api/v1/user/contacts', { firstName: 'Ours' }).expect(201);
    const ds = app.get(DataSource);
    const count = async () =>
      Number(
        (
          await ds.query(`SELECT count(*) AS n FROM messages WHERE organization_id = $1`, [
            s.org.id,
          ])
        )[0].n,
      );
    const before = await count();

    let body = await refused(basicEmail({ campaignId: theirCampaign.body.data.id }), 404);
    expect(body).toMatchObject({ code: 'E_ROW_NOT_FOUND', message: 'Campaign not found' });
    body = await refused(basicEmail({ contactId: theirContact.body.data.id }), 404);
    expect(body).toMatchObject({ code: 'E_ROW_NOT_FOUND', message: 'Contact not found' });
    await refused(basicEmail({ campaignId: '6f1c2a6e-9a43-4d44-8f0e-5d1e1c9b7a10' }), 404);
    expect(await count()).toBe(before);

    await s.http.post('/api/v1/send', basicEmail({ contactId: ours.body.data.id })).expect(202);
  });

  it('commits the message before queueing a job that carries only its ids', async () => {
    const res = await s.http
      .post(
        '/api/v1/send',
        basicEmail({ subject: 'Private subject line', to: 'private@example.test' }),
      )
      .expect(202);
    const ds = app.get(DataSource);
    const [row] = await ds.query(
      `SELECT id, status, content, next_attempt_at FROM messages WHERE organization_id = $1 AND job_id = $2`,
      [s.org.id, res.body.data.jobId],
    );
    expect(row.status).toBe('queued');
    expect(row.next_attempt_at).toBeInstanceOf(Date);
    // Content and recipients are encrypted at rest.
    expect(row.content).toMatch(/^v1:/);
    expect(row.content).not.toContain('Private subject line');
    const [rcpt] = await ds.query(`SELECT address FROM message_recipients WHERE message_id = $1`, [
      row.id,
    ]);
    expect(rcpt.address).not.toContain('private@example.test');

    const queue = app.get<Queue>(getQueueToken(QUEUES.email));
    const job = await queue.getJob(`${row.id}:0`);
    expect(job).not.toBeNull();
    expect(job!.name).toBe('deliver');
    expect(job!.data).toEqual({ organizationId: s.org.id, messageId: row.id });
  });

  it('does not deduplicate requests', async () => {
    const a = await s.http.post('/api/v1/send', basicEmail()).expect(202);
    const b = await s.http.post('/api/v1/send', basicEmail()).expect(202);
    expect(a.body.data.jobId).not.toBe(b.body.data.jobId);
  });
});
