import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createTestApp } from '../support/app';
import { client, createKey, createSession, NIL_UUID, Session } from '../support/session';
import { campaignBody, seedList, SeededList } from './fixtures';

const BASE = '/api/v1/user/campaigns';

describe('Campaigns API (§11)', () => {
  let app: INestApplication;
  let s: Session;
  let other: Session;
  let list: SeededList;

  beforeAll(async () => {
    app = await createTestApp();
    s = await createSession(app);
    other = await createSession(app);
    list = await seedList(app, s.org.id, { subscribed: 3, unsubscribed: 2, withoutEmail: 1 });
  });
  afterAll(() => app.close());

  const create = async (extra: Record<string, unknown> = {}) => {
    const res = await s.http.post(BASE, campaignBody(list.listId, extra)).expect(201);
    return res.body.data as { id: string; status: string };
  };

  it('creates a draft and reads it back', async () => {
    const res = await s.http.post(BASE, campaignBody(list.listId)).expect(201);
    expect(res.body).toMatchObject({ success: true, message: 'Campaign created successfully' });
    expect(res.body.data).toMatchObject({
      organizationId: s.org.id,
      name: 'Spring sale',
      channel: 'email',
      subject: 'Twenty percent off',
      from: 'Shop <news@shop.example>',
      listId: list.listId,
      segmentId: null,
      status: 'draft',
      recipientCount: 0,
      sentCount: 0,
      failedCount: 0,
      startedAt: null,
      completedAt: null,
    });
    const got = await s.http.get(`${BASE}/${res.body.data.id}`).expect(200);
    const none = {
      queued: 0,
      deferred: 0,
      sent: 0,
      delivered: 0,
      partially_delivered: 0,
      bounced: 0,
    };
    expect(got.body.data).toEqual({
      ...res.body.data,
      delivery: { ...none, failed: 0, suppressed: 0 },
      byChannel: {},
    });
  });

  it('accepts every from the send path accepts, e.g. a quoted display name', async () => {
    const res = await s.http
      .post(BASE, campaignBody(list.listId, { from: '"Shop, Inc." <news@shop.example>' }))
      .expect(201);
    expect(res.body.data.from).toBe('"Shop, Inc." <news@shop.example>');
  });

  it('lists the organization’s campaigns newest first, paginated, filterable by status', async () => {
    const fresh = await createSession(app);
    const l = await seedList(app, fresh.org.id, { subscribed: 1 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await fresh.http.post(BASE, campaignBody(l.listId, { name: `C${i}` })).expect(201);
      ids.push(r.body.data.id);
    }
    const page = await fresh.http.get(`${BASE}?limit=2`).expect(200);
    expect(page.body.data.map((c: { name: string }) => c.name)).toEqual(['C2', 'C1']);
    expect(page.body.meta).toMatchObject({ total: 3, perPage: 2, currentPage: 1, lastPage: 2 });
    expect(page.body.meta.nextPageUrl).toBe(`${BASE}?limit=2&page=2`);
    await fresh.http.post(`${BASE}/${ids[0]}/send`).expect(202);
    const sending = await fresh.http.get(`${BASE}?status=sending`).expect(200);
    expect(sending.body.data.map((c: { id: string }) => c.id)).toEqual([ids[0]]);
    await fresh.http.get(`${BASE}?status=bogus`).expect(422);
  });

  it.each([
    [
      'neither listId nor segmentId',
      { listId: undefined },
      [{ field: 'listId', rule: 'required' }],
    ],
    [
      'both listId and segmentId',
      { segmentId: NIL_UUID },
      [{ field: 'segmentId', rule: 'unknown' }],
    ],
    ['a malformed from', { from: 'not an address' }, [{ field: 'from', rule: 'email' }]],
    [
      'a from the send path would refuse (empty domain label)',
      { from: 'Shop <news@shop..example>' },
      [{ field: 'from', rule: 'email' }],
    ],
    [
      'a from with a header break',
      { from: 'Shop <a@b.c>\r\nBcc: x@y.z' },
      [{ field: 'from', rule: 'email' }],
    ],
    [
      'a subject with a line break',
      { subject: 'a\r\nBcc: x@y.z' },
      [{ field: 'subject', rule: 'type' }],
    ],
    [
      'neither html nor text',
      { html: undefined, text: undefined },
      [{ field: 'html', rule: 'required' }],
    ],
    ['an unknown channel', { channel: 'fax' }, [{ field: 'channel', rule: 'enum' }]],
    [
      'a channel without its content',
      { channel: 'sms' },
      [{ field: 'content.sms', rule: 'required' }],
    ],
    [
      'content given as a list',
      { content: [1, 2] },
      [
        { field: 'content', rule: 'type' },
        { field: 'content.0', rule: 'type' },
        { field: 'content.1', rule: 'type' },
      ],
    ],
    [
      'a channel named twice',
      { channels: ['email', 'email'] },
      [{ field: 'channels', rule: 'unique' }],
    ],
    ['an unknown field', { status: 'sent' }, [{ field: 'status', rule: 'unknown' }]],
    ['a non-uuid listId', { listId: 'abc' }, [{ field: 'listId', rule: 'uuid' }]],
  ])('refuses %s with 422', async (_, extra, errors) => {
    const res = await s.http.post(BASE, campaignBody(list.listId, extra)).expect(422);
    expect(res.body.code).toBe('E_VALIDATION_ERROR');
    expect(res.body.errors).toEqual(errors.map((e) => expect.objectContaining(e)));
  });

  it('a list of another organization (or none) is a 404', async () => {
    const foreign = await seedList(app, other.org.id, { subscribed: 1 });
    for (const listId of [foreign.listId, NIL_UUID]) {
      const res = await s.http.post(BASE, campaignBody(listId)).expect(404);
      expect(res.body).toEqual({
        success: false,
        message: 'Contact list not found',
        code: 'E_ROW_NOT_FOUND',
      });
    }
  });

  it('counts the reach of a list by channel before sending, storing nothing', async () => {
    const res = await s.http
      .post(`${BASE}/reach`, { listId: list.listId, channels: ['sms', 'email'] })
      .expect(200);
    // No SMS provider is connected: the SMS channel carries nobody, email the three with one.
    expect(res.body.data).toEqual({ total: 4, byChannel: { sms: 0, email: 3 }, unreachable: 1 });
    const byDefault = await s.http.post(`${BASE}/reach`, { listId: list.listId }).expect(200);
    expect(byDefault.body.data.byChannel).toEqual({ email: 3 });
    const [{ n }] = await app
      .get(DataSource)
      .query(`SELECT count(*)::int AS n FROM campaign_recipients WHERE organization_id = $1`, [
        s.org.id,
      ]);
    const again = await s.http.post(`${BASE}/reach`, { listId: list.listId }).expect(200);
    expect(again.body.data).toEqual(byDefault.body.data);
    const [{ n: after }] = await app
      .get(DataSource)
      .query(`SELECT count(*)::int AS n FROM campaign_recipients WHERE organization_id = $1`, [
        s.org.id,
      ]);
    expect(after).toBe(n);
    const foreign = await seedList(app, other.org.id, { subscribed: 1 });
    await s.http.post(`${BASE}/reach`, { listId: foreign.listId }).expect(404);
    const none = await s.http.post(`${BASE}/reach`, {}).expect(422);
    expect(none.body.errors).toEqual([
      expect.objectContaining({ field: 'listId', rule: 'required' }),
    ]);
  });

  it('edits a draft, and replaces the target when another list is given', async () => {
    const c = await create();
    const l2 = await seedList(app, s.org.id, { subscribed: 1 });
    const res = await s.http
      .patch(`${BASE}/${c.id}`, { name: 'Renamed', html: null, listId: l2.listId })
      .expect(200);
    expect(res.body.data).toMatchObject({
      name: 'Renamed',
      html: null,
      text: 'Hello',
      listId: l2.listId,
    });
    // Removing the last body part is refused.
    const bad = await s.http.patch(`${BASE}/${c.id}`, { text: null }).expect(422);
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'html', rule: 'required' })]);
  });

  it('sends a draft: 202, recipients = subscribed members with an email, the rest unreachable', async () => {
    const c = await create();
    const res = await s.http.post(`${BASE}/${c.id}/send`).expect(202);
    expect(res.body).toMatchObject({ success: true, message: 'Campaign is being sent' });
    expect(res.body.data).toMatchObject({ status: 'sending', recipientCount: 3 });
    expect(res.body.data.startedAt).toEqual(expect.any(String));
    const rows: { contact_id: string; status: string; contact_email_id: string | null }[] =
      await app
        .get(DataSource)
        .query(
          `SELECT contact_id, status, contact_email_id FROM campaign_recipients WHERE campaign_id = $1`,
          [c.id],
        );
    const reachable = rows.filter((r) => r.status !== 'unreachable');
    expect(reachable.map((r) => r.contact_id).sort()).toEqual([...list.contactIds].sort());
    expect(reachable.every((r) => r.status === 'pending' && r.contact_email_id)).toBe(true);
    // The subscribed member without an email is counted, not sent to.
    expect(rows.length - reachable.length).toBe(1);
    expect(res.body.data.unreachableCount).toBe(1);
  });

  it('sending a campaign that is not a draft → 409 E_CAMPAIGN_NOT_SENDABLE, nothing changes', async () => {
    const c = await create();
    await s.http.post(`${BASE}/${c.id}/send`).expect(202);
    const again = await s.http.post(`${BASE}/${c.id}/send`).expect(409);
    expect(again.body).toEqual({
      success: false,
      message: 'Campaign is sending; only a draft can be sent',
      code: 'E_CAMPAIGN_NOT_SENDABLE',
    });
    const [{ n }] = await app.get(DataSource).query(
      `SELECT count(*)::int AS n FROM campaign_recipients
          WHERE campaign_id = $1 AND status <> 'unreachable'`,
      [c.id],
    );
    expect(n).toBe(3);

    await s.http.post(`${BASE}/${c.id}/cancel`).expect(200);
    const cancelled = await s.http.post(`${BASE}/${c.id}/send`).expect(409);
    expect(cancelled.body.code).toBe('E_CAMPAIGN_NOT_SENDABLE');
  });

  it('two concurrent sends of one draft: one 202, one 409, recipients materialised once', async () => {
    const c = await create();
    const results = await Promise.all([
      s.http.post(`${BASE}/${c.id}/send`),
      s.http.post(`${BASE}/${c.id}/send`),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([202, 409]);
    const [{ n }] = await app.get(DataSource).query(
      `SELECT count(*)::int AS n FROM campaign_recipients
          WHERE campaign_id = $1 AND status <> 'unreachable'`,
      [c.id],
    );
    expect(n).toBe(3);
  });

  it('a campaign with no recipients → 409 E_CAMPAIGN_NOT_SENDABLE and stays a draft', async () => {
    const empty = await seedList(app, s.org.id, {
      subscribed: 0,
      unsubscribed: 2,
      withoutEmail: 2,
    });
    const c = (await s.http.post(BASE, campaignBody(empty.listId)).expect(201)).body.data;
    const res = await s.http.post(`${BASE}/${c.id}/send`).expect(409);
    expect(res.body).toEqual({
      success: false,
      message: 'Campaign has no recipients: none of its 2 contacts can be reached on email',
      code: 'E_CAMPAIGN_NOT_SENDABLE',
    });
    expect((await s.http.get(`${BASE}/${c.id}`)).body.data.status).toBe('draft');
  });

  it('a sent or sending campaign can be neither edited nor deleted (409 E_BUSINESS_RULE_VIOLATION)', async () => {
    const c = await create();
    await s.http.post(`${BASE}/${c.id}/send`).expect(202);
    const patch = await s.http.patch(`${BASE}/${c.id}`, { name: 'x' }).expect(409);
    expect(patch.body).toEqual({
      success: false,
      message: 'Campaign is sending; only a draft can be edited',
      code: 'E_BUSINESS_RULE_VIOLATION',
    });
    const del = await s.http.delete(`${BASE}/${c.id}`).expect(409);
    expect(del.body.code).toBe('E_BUSINESS_RULE_VIOLATION');
  });

  it('cancelling a sending campaign fails its unsent recipients', async () => {
    const c = await create();
    await s.http.post(`${BASE}/${c.id}/send`).expect(202);
    const res = await s.http.post(`${BASE}/${c.id}/cancel`).expect(200);
    expect(res.body.data).toMatchObject({ status: 'cancelled', failedCount: 3 });
    expect(res.body.data.completedAt).toEqual(expect.any(String));
    const again = await s.http.post(`${BASE}/${c.id}/cancel`).expect(409);
    expect(again.body.code).toBe('E_BUSINESS_RULE_VIOLATION');
  });

  it('deletes a draft', async () => {
    const c = await create();
    await s.http.delete(`${BASE}/${c.id}`).expect(200);
    await s.http.get(`${BASE}/${c.id}`).expect(404);
  });

  it('another organization’s campaign is a 404 everywhere', async () => {
    const c = await create();
    const o = other.http;
    for (const res of [
      await o.get(`${BASE}/${c.id}`),
      await o.patch(`${BASE}/${c.id}`, { name: 'x' }),
      await o.delete(`${BASE}/${c.id}`),
      await o.post(`${BASE}/${c.id}/send`),
      await o.post(`${BASE}/${c.id}/cancel`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        success: false,
        message: 'Campaign not found',
        code: 'E_ROW_NOT_FOUND',
      });
    }
    const listed = await o.get(BASE).expect(200);
    expect(listed.body.data.map((x: { id: string }) => x.id)).not.toContain(c.id);
    expect((await s.http.get(`${BASE}/${c.id}`)).body.data.status).toBe('draft');
  });

  it('enforces campaigns:read and campaigns:write', async () => {
    const c = await create();
    const { value } = await createKey(app, s.org.id, { scopes: ['campaigns:read'] });
    const reader = client(app, { 'X-API-Key': value });
    await reader.get(`${BASE}/${c.id}`).expect(200);
    await reader.get(BASE).expect(200);
    for (const res of [
      await reader.post(BASE, campaignBody(list.listId)),
      await reader.patch(`${BASE}/${c.id}`, { name: 'x' }),
      await reader.delete(`${BASE}/${c.id}`),
      await reader.post(`${BASE}/${c.id}/send`),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('E_INSUFFICIENT_SCOPE');
    }
    const { value: none } = await createKey(app, s.org.id, { scopes: ['contacts:read'] });
    const res = await client(app, { 'X-API-Key': none }).get(BASE);
    expect(res.status).toBe(403);
  });

  it('a non-UUID path id is a 422', async () => {
    const res = await s.http.get(`${BASE}/abc`).expect(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'id', rule: 'uuid' })]);
  });
});
