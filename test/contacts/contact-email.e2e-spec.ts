// ContactEmailService: what sending and feedback processing call, by address (blind index).
import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { asOrgId, ContactEmailService } from '@app/domain';
import { createTestApp } from '../support/app';
import { createSession, Session } from '../support/session';
import { CONTACTS, createContact } from './contacts-support';

describe(ContactEmailService.name, () => {
  let app: INestApplication;
  let s: Session;
  let svc: ContactEmailService;
  let c1: { id: string; emails: { id: string }[] };

  beforeAll(async () => {
    app = await createTestApp();
    s = await createSession(app);
    svc = app.get(ContactEmailService);
    c1 = (await createContact(s, {
      emails: [
        { email: 'One@Feedback.example' },
        { email: 'two@feedback.example', status: 'suppressed' },
      ],
    })) as unknown as typeof c1;
  });
  afterAll(() => app.close());

  it('finds statuses of many addresses at once, keyed by the normalised address', async () => {
    const other = await createSession(app);
    await createContact(other, { emails: [{ email: 'three@feedback.example' }] });
    const map = await svc.findStatusesByEmails(s.org.id, [
      ' ONE@feedback.example',
      'two@feedback.example',
      'three@feedback.example',
      'nobody@feedback.example',
    ]);
    expect([...map.keys()].sort()).toEqual(['one@feedback.example', 'two@feedback.example']);
    expect(map.get('one@feedback.example')).toEqual({
      contactId: c1.id,
      contactEmailId: c1.emails[0].id,
      status: 'unverified',
    });
    expect(map.get('two@feedback.example')?.status).toBe('suppressed');
    expect((await svc.findStatusesByEmails(s.org.id, [])).size).toBe(0);
  });

  it('records bounces: count and time always, status bounced on a hard bounce', async () => {
    const bounce = (bounces: { email: string; hard: boolean }[], at: Date) =>
      app.get(DataSource).transaction((em) => svc.recordBounces(em, org, bounces, at));
    const org = asOrgId(s.org.id);
    const emails = async () =>
      (await s.http.get(`${CONTACTS}/${c1.id}`).expect(200)).body.data.emails as {
        email: string;
        status: string;
        bounceCount: number;
        lastBouncedAt: string | null;
      }[];
    await bounce(
      [{ email: 'one@feedback.example', hard: false }],
      new Date('2025-03-01T00:00:00Z'),
    );
    expect((await emails())[0]).toMatchObject({
      status: 'unverified',
      bounceCount: 1,
      lastBouncedAt: '2025-03-01T00:00:00.000Z',
    });
    // A hard and a soft bounce in one call; a suppressed address stays suppressed.
    await bounce(
      [
        { email: 'ONE@feedback.example', hard: true },
        { email: 'two@feedback.example', hard: true },
        { email: 'nobody@feedback.example', hard: false },
      ],
      new Date('2025-03-02T00:00:00Z'),
    );
    const [one, two] = await emails();
    expect(one).toMatchObject({
      status: 'bounced',
      bounceCount: 2,
      lastBouncedAt: '2025-03-02T00:00:00.000Z',
    });
    expect(two).toMatchObject({ status: 'suppressed', bounceCount: 1 });
    // Another organization's address of the same spelling is untouched.
    const other = await createSession(app);
    const oc = await createContact(other, { emails: [{ email: 'one@feedback.example' }] });
    await bounce([{ email: 'one@feedback.example', hard: true }], new Date());
    const oe = (await other.http.get(`${CONTACTS}/${oc.id}`).expect(200)).body.data.emails[0];
    expect(oe).toMatchObject({ status: 'unverified', bounceCount: 0 });
  });

  it('lists the suppressed among addresses, and the addresses of a contact', async () => {
    const org = asOrgId(s.org.id);
    const suppressed = await svc.suppressed(org, [
      'One@feedback.example',
      'two@feedback.example',
      'nobody@feedback.example',
    ]);
    expect([...suppressed]).toEqual(
      expect.arrayContaining([
        ['one@feedback.example', 'bounced'],
        ['two@feedback.example', 'suppressed'],
      ]),
    );
    expect(suppressed.size).toBe(2);
    expect((await svc.addressesOf(org, c1.id)).sort()).toEqual([
      'One@Feedback.example',
      'two@feedback.example',
    ]);
    const other = await createSession(app);
    expect(await svc.addressesOf(asOrgId(other.org.id), c1.id)).toEqual([]);
  });

  it('records complaints: count, time and status complained', async () => {
    const r = await svc.recordComplaint(
      s.org.id,
      'one@feedback.example',
      new Date('2025-04-01T00:00:00Z'),
    );
    expect(r?.status).toBe('complained');
    const e = (await s.http.get(`${CONTACTS}/${c1.id}`).expect(200)).body.data.emails[0];
    expect(e).toMatchObject({
      status: 'complained',
      complaintCount: 1,
      lastComplainedAt: '2025-04-01T00:00:00.000Z',
    });
    // Another organization's address of the same spelling is untouched.
    const other = await createSession(app);
    const oc = await createContact(other, { emails: [{ email: 'one@feedback.example' }] });
    expect(await svc.recordComplaint(other.org.id, 'x@feedback.example', new Date())).toBeNull();
    const oe = (await other.http.get(`${CONTACTS}/${oc.id}`).expect(200)).body.data.emails[0];
    expect(oe).toMatchObject({ status: 'unverified', complaintCount: 0, bounceCount: 0 });
  });
});
