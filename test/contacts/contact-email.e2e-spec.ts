// ContactEmailService: what sending and feedback processing call, by address (blind index).
import { INestApplication } from '@nestjs/common';
import { ContactEmailService } from '@app/domain';
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
    const soft = await svc.recordBounce(s.org.id, 'one@feedback.example', {
      hard: false,
      at: new Date('2025-03-01T00:00:00Z'),
    });
    expect(soft).toEqual({
      contactId: c1.id,
      contactEmailId: c1.emails[0].id,
      status: 'unverified',
    });
    const hard = await svc.recordBounce(s.org.id, 'ONE@feedback.example', {
      hard: true,
      at: new Date('2025-03-02T00:00:00Z'),
    });
    expect(hard?.status).toBe('bounced');
    // A suppressed address stays suppressed.
    const supp = await svc.recordBounce(s.org.id, 'two@feedback.example', {
      hard: true,
      at: new Date(),
    });
    expect(supp?.status).toBe('suppressed');
    expect(
      await svc.recordBounce(s.org.id, 'nobody@feedback.example', { hard: true, at: new Date() }),
    ).toBeNull();
    const e = (await s.http.get(`${CONTACTS}/${c1.id}`).expect(200)).body.data.emails[0];
    expect(e).toMatchObject({
      status: 'bounced',
      bounceCount: 2,
      lastBouncedAt: '2025-03-02T00:00:00.000Z',
    });
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
