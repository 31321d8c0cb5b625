// The aggregates GET /contacts and GET /contact-tags read instead of counting a million rows
// (contacts.channel_mask, contact_counters, contact_tag_counters) stay equal to the rows they
// summarise, and contacts.tag_ids to tags that exist, through every kind of change, also when
// changes run concurrently.
import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createTestApp } from '../support/app';
import { createSession, Session } from '../support/session';
import { CONTACTS, createContact } from './contacts-support';

describe('Contact aggregates', () => {
  let app: INestApplication;
  let s: Session;
  let ds: DataSource;

  beforeAll(async () => {
    app = await createTestApp();
    s = await createSession(app);
    ds = app.get(DataSource);
  });
  afterAll(() => app.close());

  async function expectConsistent() {
    const masks: { id: string; mask: number; actual: number }[] = await ds.query(
      `SELECT c.id, c.channel_mask AS mask,
              (CASE WHEN EXISTS (SELECT 1 FROM contact_emails t WHERE t.contact_id = c.id) THEN 1 ELSE 0 END
             | CASE WHEN EXISTS (SELECT 1 FROM contact_sms t WHERE t.contact_id = c.id) THEN 2 ELSE 0 END
             | CASE WHEN EXISTS (SELECT 1 FROM contact_whatsapp t WHERE t.contact_id = c.id) THEN 4 ELSE 0 END
             | CASE WHEN EXISTS (SELECT 1 FROM contact_telegram t WHERE t.contact_id = c.id) THEN 8 ELSE 0 END
             | CASE WHEN EXISTS (SELECT 1 FROM contact_imessage t WHERE t.contact_id = c.id) THEN 16 ELSE 0 END
             | CASE WHEN EXISTS (SELECT 1 FROM contact_push t WHERE t.contact_id = c.id) THEN 32 ELSE 0 END) AS actual
         FROM contacts c WHERE c.organization_id = $1`,
      [s.org.id],
    );
    for (const m of masks) expect({ id: m.id, mask: m.mask }).toEqual({ id: m.id, mask: m.actual });
    const diff = await ds.query(
      `SELECT coalesce(a.status, b.status) AS status, coalesce(a.channel_mask, b.channel_mask) AS mask,
              coalesce(a.total, 0)::int AS counted, coalesce(b.n, 0)::int AS actual
         FROM (SELECT status, channel_mask, sum(total) AS total FROM contact_counters
                WHERE organization_id = $1 GROUP BY 1, 2) a
         FULL JOIN (SELECT coalesce(status, '') AS status, channel_mask, count(*) AS n
                      FROM contacts WHERE organization_id = $1 GROUP BY 1, 2) b
           ON a.status = b.status AND a.channel_mask = b.channel_mask
        WHERE coalesce(a.total, 0) <> coalesce(b.n, 0)`,
      [s.org.id],
    );
    expect(diff).toEqual([]);
    const tags = await ds.query(
      `SELECT t.name,
              (SELECT coalesce(sum(tc.total), 0)::int FROM contact_tag_counters tc
                WHERE tc.tag_id = t.id) AS counted,
              (SELECT count(*)::int FROM contacts c
                WHERE c.organization_id = $1 AND t.id = ANY(c.tag_ids)) AS actual
         FROM contact_tags t WHERE t.organization_id = $1`,
      [s.org.id],
    );
    for (const t of tags)
      expect({ name: t.name, count: t.counted }).toEqual({ name: t.name, count: t.actual });
    // Each contact's tag ids: sorted, distinct, every one a tag of its organization.
    const tagIds: { id: string; stored: string[]; actual: string[] }[] = await ds.query(
      `SELECT c.id, c.tag_ids AS stored,
              coalesce((SELECT array_agg(t.id ORDER BY t.id) FROM contact_tags t
                         WHERE t.organization_id = $1 AND t.id = ANY(c.tag_ids)), '{}') AS actual
         FROM contacts c WHERE c.organization_id = $1`,
      [s.org.id],
    );
    expect(tagIds.length).toBeGreaterThan(0);
    for (const t of tagIds)
      expect({ id: t.id, tags: t.stored }).toEqual({ id: t.id, tags: t.actual });
  }

  it('follow creation, status changes, channel records, tags and deletion', async () => {
    const a = await createContact(s, {
      emails: [{ email: 'agg-a@example.com' }],
      tags: ['x', 'y'],
    });
    const b = await createContact(s, {
      status: null,
      smsNumbers: [{ phoneNumber: '+14155550301' }],
      tags: ['x'],
    });
    const c = await createContact(s, { status: 'archived' });
    await expectConsistent();
    await s.http.patch(`${CONTACTS}/${a.id}`, { status: 'inactive' }).expect(200);
    await s.http.patch(`${CONTACTS}/${b.id}`, { status: 'active' }).expect(200);
    const push = await s.http
      .post(`${CONTACTS}/${c.id}/push`, { deviceToken: 'agg-token', platform: 'web' })
      .expect(201);
    await s.http.post(`${CONTACTS}/${a.id}/sms`, { phoneNumber: '+14155550302' }).expect(201);
    await s.http.post(`${CONTACTS}/${a.id}/emails`, { email: 'agg-a2@example.com' }).expect(201);
    await expectConsistent();
    // Deleting one of two emails keeps the bit; deleting the last one clears it.
    const emails = (await s.http.get(`${CONTACTS}/${a.id}`).expect(200)).body.data.emails;
    await s.http.delete(`${CONTACTS}/${a.id}/emails/${emails[0].id}`).expect(200);
    await expectConsistent();
    await s.http.delete(`${CONTACTS}/${a.id}/emails/${emails[1].id}`).expect(200);
    await s.http.delete(`${CONTACTS}/${c.id}/push/${push.body.data.id}`).expect(200);
    await expectConsistent();
    const x = (await s.http.get('/api/v1/user/contact-tags/all').expect(200)).body.data.find(
      (t: { name: string }) => t.name === 'x',
    );
    await s.http.delete(`${CONTACTS}/${a.id}/tags/${x.id}`).expect(200);
    await s.http.delete(`${CONTACTS}/${b.id}`).expect(200);
    await expectConsistent();
    const total = (await s.http.get(CONTACTS).expect(200)).body.meta.total;
    expect(total).toBe(2);
  });

  it('stay exact under concurrent creates, channel changes and deletes', async () => {
    const base = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        createContact(s, { firstName: `P${i}`, tags: ['conc'] }),
      ),
    );
    await Promise.all([
      ...base.map((c, i) =>
        s.http.post(`${CONTACTS}/${c.id}/sms`, { phoneNumber: `+1415555040${i}` }),
      ),
      ...base.map((c, i) =>
        s.http.post(`${CONTACTS}/${c.id}/emails`, { email: `conc${i}@example.com` }),
      ),
      ...base.slice(0, 5).map((c) => s.http.patch(`${CONTACTS}/${c.id}`, { status: 'inactive' })),
      ...Array.from({ length: 10 }, (_, i) =>
        s.http.post(CONTACTS, { tags: ['conc'], smsNumbers: [{ phoneNumber: `+1415555050${i}` }] }),
      ),
    ]);
    await expectConsistent();
    await Promise.all([
      ...base.slice(5).map((c) => s.http.delete(`${CONTACTS}/${c.id}`)),
      ...base
        .slice(0, 5)
        .map((c) => s.http.post(`${CONTACTS}/${c.id}/tags`, { names: ['conc', 'more'] })),
    ]);
    await expectConsistent();
    const active = (await s.http.get(`${CONTACTS}?status=active&channel=sms`).expect(200)).body;
    const [{ n }] = await ds.query(
      `SELECT count(*)::int AS n FROM contacts c WHERE c.organization_id = $1 AND c.status = 'active'
          AND EXISTS (SELECT 1 FROM contact_sms t WHERE t.contact_id = c.id)`,
      [s.org.id],
    );
    expect(active.meta.total).toBe(n);
  });

  it('keep tag_ids exact under concurrent tag changes on one contact and tag deletion', async () => {
    const one = await createContact(s, { firstName: 'Tagged', tags: ['t-keep', 't-drop'] });
    const drop = (await s.http.get('/api/v1/user/contact-tags/all').expect(200)).body.data.find(
      (t: { name: string }) => t.name === 't-drop',
    );
    const keep = (await s.http.get('/api/v1/user/contact-tags/all').expect(200)).body.data.find(
      (t: { name: string }) => t.name === 't-keep',
    );
    const results = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) =>
        s.http.post(`${CONTACTS}/${one.id}/tags`, { names: [`t-${i}`, `t-${(i + 1) % 8}`] }),
      ),
      s.http.delete(`${CONTACTS}/${one.id}/tags/${keep.id}`),
      s.http.delete(`/api/v1/user/contact-tags/${drop.id}`),
    ]);
    for (const r of results) expect(r.status).toBe(200);
    await expectConsistent();
    const [row] = await ds.query(`SELECT cardinality(tag_ids) AS n FROM contacts WHERE id = $1`, [
      one.id,
    ]);
    expect(row.n).toBe(8);
  });

  it('leave no contact with the id of a tag deleted while contacts were being given it', async () => {
    const first = await createContact(s, { firstName: 'Racy', tags: ['racy'] });
    const racy = (await s.http.get(`${CONTACTS}/${first.id}`).expect(200)).body.data.tags;
    expect(racy).toEqual(['racy']);
    const tag = (await s.http.get('/api/v1/user/contact-tags/all').expect(200)).body.data.find(
      (t: { name: string }) => t.name === 'racy',
    );
    const results = await Promise.all([
      ...Array.from({ length: 6 }, (_, i) =>
        s.http.post(CONTACTS, { firstName: `Racy${i}`, tags: ['racy'] }),
      ),
      s.http.post(`${CONTACTS}/${first.id}/tags`, { names: ['racy', 'calm'] }),
      s.http.delete(`/api/v1/user/contact-tags/${tag.id}`),
    ]);
    for (const r of results) expect([200, 201]).toContain(r.status);
    await expectConsistent();
  });

  it('let an organization with contacts, tags and lists be deleted whole', async () => {
    const gone = await createSession(app);
    const list = (await gone.http.post('/api/v1/user/contact-lists', { name: 'Gone' }).expect(201))
      .body.data;
    await createContact(gone, {
      emails: [{ email: 'gone-org@example.com' }],
      smsNumbers: [{ phoneNumber: '+14155550399' }],
      tags: ['gone'],
      listIds: [list.id],
    });
    await ds.query(`DELETE FROM organizations WHERE id = $1`, [gone.org.id]);
    for (const table of ['contacts', 'contact_counters', 'contact_tags', 'contact_lists']) {
      const [{ n }] = await ds.query(
        `SELECT count(*)::int AS n FROM ${table} WHERE organization_id = $1`,
        [gone.org.id],
      );
      expect({ table, n }).toEqual({ table, n: 0 });
    }
  });

  it("go to the slot a transaction sets in contacts.counter_slot, else to its backend's", async () => {
    const own = await createSession(app);
    const [{ id: tagId }] = (await ds.query(
      `INSERT INTO contact_tags (organization_id, name) VALUES ($1, 'slotted') RETURNING id`,
      [own.org.id],
    )) as { id: string }[];
    const insertOne = (slot: number | null) =>
      ds.transaction(async (em) => {
        if (slot !== null)
          await em.query(`SELECT set_config('contacts.counter_slot', $1, true)`, [String(slot)]);
        await em.query(
          `INSERT INTO contacts (organization_id, status, tag_ids) VALUES ($1, 'active', $2::uuid[])`,
          [own.org.id, [tagId]],
        );
        const [{ pid }] = (await em.query(`SELECT pg_backend_pid() AS pid`)) as { pid: number }[];
        return pid;
      });
    const slots = async (sql: string, id: string) =>
      ((await ds.query(sql, [id])) as { slot: number; total: number }[]).map((r) => [
        r.slot,
        r.total,
      ]);
    const counters = async () => ({
      contacts: await slots(
        `SELECT slot, total::int AS total FROM contact_counters WHERE organization_id = $1 ORDER BY slot`,
        own.org.id,
      ),
      tag: await slots(
        `SELECT slot, total::int AS total FROM contact_tag_counters WHERE tag_id = $1 ORDER BY slot`,
        tagId,
      ),
    });

    await insertOne(23);
    await insertOne(7);
    expect(await counters()).toEqual({ contacts: [[7, 2]], tag: [[7, 2]] });
    const bySession = (await insertOne(null)) % 16;
    const expected =
      bySession === 7
        ? [[7, 3]]
        : [
            [7, 2],
            [bySession, 1],
          ].sort((a, b) => a[0] - b[0]);
    expect(await counters()).toEqual({ contacts: expected, tag: expected });
  });
});
