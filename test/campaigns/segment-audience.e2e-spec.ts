// A campaign to a segment: the segments area hands its contacts over as batches of ids, and the
// reach and the recipients come out as they do with the whole segment in one batch.
import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SegmentsService } from '@app/domain';
import { CampaignAudienceRepository } from '@app/domain/campaigns/campaign-audience.repository';
import { createTestApp } from '../support/app';
import { createSession, Session } from '../support/session';
import { campaignBody, seedList, SeededList } from './fixtures';

const BASE = '/api/v1/user/campaigns';
const SEGMENTS = '/api/v1/user/contact-segments';
/** Every contact the list fixture seeds is named "Contact". */
const EVERY_CONTACT = {
  operator: 'and',
  conditions: [{ field: 'firstName', operator: 'equals', value: 'contact' }],
};

describe('Campaign audience of a segment, batch by batch', () => {
  let app: INestApplication;
  let ds: DataSource;
  let s: Session;
  let list: SeededList;
  let everyone: string;
  let segments: SegmentsService;
  let audience: CampaignAudienceRepository;

  /** Runs `work` with the segments area handing out `size` contact ids per batch. */
  const inBatchesOf = async <T>(size: number, work: () => Promise<T>): Promise<T> => {
    const whole = segments.contactIdBatches.bind(segments);
    const spy = jest
      .spyOn(segments, 'contactIdBatches')
      .mockImplementation((orgId, id) => whole(orgId, id, size));
    try {
      return await work();
    } finally {
      spy.mockRestore();
    }
  };

  beforeAll(async () => {
    app = await createTestApp();
    ds = app.get(DataSource);
    segments = app.get(SegmentsService);
    audience = app.get(CampaignAudienceRepository);
    s = await createSession(app);
    // 4 subscribed and 1 unsubscribed member with an email, 2 without: a segment ignores the
    // list's subscriptions, so 5 can be emailed and 2 are unreachable.
    list = await seedList(app, s.org.id, { subscribed: 4, unsubscribed: 1, withoutEmail: 2 });
    everyone = (
      await s.http
        .post(SEGMENTS, { name: 'everyone', type: 'dynamic', rules: EVERY_CONTACT })
        .expect(201)
    ).body.data.id;
    // Another organization's look-alike contacts never join the audience.
    const other = await createSession(app);
    await seedList(app, other.org.id, { subscribed: 3 });
  });
  afterAll(() => app.close());

  it('counts the reach over several batches as over one', async () => {
    const reach = () =>
      s.http.post(`${BASE}/reach`, { segmentId: everyone, channels: ['sms', 'email'] }).expect(200);
    const expected = { total: 7, byChannel: { sms: 0, email: 5 }, unreachable: 2 };
    const statements = jest.spyOn(audience, 'reach');
    try {
      expect((await inBatchesOf(2, reach)).body.data).toEqual(expected);
      expect(statements).toHaveBeenCalledTimes(4);
      expect((await inBatchesOf(3, reach)).body.data).toEqual(expected);
      expect(statements).toHaveBeenCalledTimes(4 + 3);
      expect((await reach()).body.data).toEqual(expected);
      expect(statements).toHaveBeenCalledTimes(4 + 3 + 1);
    } finally {
      statements.mockRestore();
    }
  });

  it('materialises one recipient per contact over several batches, each on its channel', async () => {
    const created = await s.http
      .post(BASE, campaignBody(list.listId, { listId: undefined, segmentId: everyone }))
      .expect(201);
    const id = created.body.data.id as string;
    const inserts = jest.spyOn(audience, 'addRecipients');
    const sent = await inBatchesOf(3, async () => {
      try {
        const res = await s.http.post(`${BASE}/${id}/send`).expect(202);
        expect(inserts).toHaveBeenCalledTimes(3);
        return res;
      } finally {
        inserts.mockRestore();
      }
    });
    expect(sent.body.data).toMatchObject({
      status: 'sending',
      recipientCount: 5,
      unreachableCount: 2,
    });
    const rows: { contact_id: string; channel: string | null; status: string }[] = await ds.query(
      `SELECT contact_id, channel, status FROM campaign_recipients WHERE campaign_id = $1`,
      [id],
    );
    expect(rows).toHaveLength(7);
    const emailed = rows.filter((r) => r.channel === 'email' && r.status === 'pending');
    expect(emailed).toHaveLength(5);
    // The list's subscribed members with an email are among them; the rest are unreachable.
    expect(emailed.map((r) => r.contact_id)).toEqual(expect.arrayContaining(list.contactIds));
    expect(rows.filter((r) => r.channel === null && r.status === 'unreachable')).toHaveLength(2);
    const [{ n }] = await ds.query(
      `SELECT count(*)::int AS n FROM contacts WHERE organization_id = $1`,
      [s.org.id],
    );
    expect(n).toBe(7);
  });

  it("404s another organization's segment", async () => {
    const other = await createSession(app);
    const res = await other.http
      .post(`${BASE}/reach`, { segmentId: everyone, channels: ['email'] })
      .expect(404);
    expect(res.body.message).toBe('Segment not found');
  });
});
