// PATCH /api/v1/user/contacts/{contactId}/sms/{channelId} (spec + §12.1).
import { INestApplication } from '@nestjs/common';
import { createTestApp } from '../support/app';
import { createSession, NIL_UUID, Session } from '../support/session';
import { CONTACTS, createContact, keys, rulesOf, SMS_KEYS, sorted } from './contacts-support';

describe('PATCH /contacts/{contactId}/sms/{channelId}', () => {
  let app: INestApplication;
  let s: Session;
  let contactId: string;
  let smsId: string;
  let otherSmsId: string;

  beforeAll(async () => {
    app = await createTestApp();
    s = await createSession(app);
    const c = await createContact(s, { smsNumbers: [{ phoneNumber: '+14155550161' }] });
    contactId = c.id;
    smsId = (c.smsNumbers as { id: string }[])[0].id;
    const other = await createContact(s, { smsNumbers: [{ phoneNumber: '+14155550162' }] });
    otherSmsId = (other.smsNumbers as { id: string }[])[0].id;
  });
  afterAll(() => app.close());

  const url = (contact: string, channel: string) => `${CONTACTS}/${contact}/sms/${channel}`;

  it('changes status and isPrimary and answers the ContactSms', async () => {
    const res = await s.http
      .patch(url(contactId, smsId), { status: 'verified', isPrimary: false })
      .expect(200);
    expect(res.body.message).toBe('SMS number updated successfully');
    expect(keys(res.body.data)).toEqual(sorted(SMS_KEYS));
    expect(res.body.data).toMatchObject({
      id: smsId,
      contactId,
      phoneNumber: '+14155550161',
      countryCode: 'US',
      status: 'verified',
      isPrimary: false,
    });
    for (const status of ['unverified', 'invalid', 'opted_out', 'verified']) {
      const r = await s.http.patch(url(contactId, smsId), { status }).expect(200);
      expect(r.body.data.status).toBe(status);
    }
  });

  it('answers 404 for an unknown channel id', async () => {
    const res = await s.http.patch(url(contactId, NIL_UUID), { status: 'verified' }).expect(404);
    expect(res.body).toMatchObject({ success: false, code: 'E_ROW_NOT_FOUND' });
    // A record of another contact is unknown under this one.
    await s.http.patch(url(contactId, otherSmsId), { status: 'verified' }).expect(404);
  });

  it('answers 404, not 500, for a contact id that does not resolve in the organization (§12.1)', async () => {
    const res = await s.http.patch(url(NIL_UUID, smsId), { status: 'verified' }).expect(404);
    expect(res.body).toMatchObject({ success: false, code: 'E_ROW_NOT_FOUND' });
    const other = await createSession(app);
    await other.http.patch(url(contactId, smsId), { status: 'verified' }).expect(404);
  });

  it('refuses a body carrying phoneNumber with 422 (rule unknown): the number is immutable', async () => {
    const res = await s.http
      .patch(url(contactId, smsId), { phoneNumber: '+14155550199' })
      .expect(422);
    expect(res.body).toMatchObject({ success: false, code: 'E_VALIDATION_ERROR' });
    expect(rulesOf(res.body, 'phoneNumber')).toEqual(['unknown']);
    await s.http
      .patch(url(contactId, smsId), { status: 'verified', phoneNumber: '+14155550161' })
      .expect(422);
    await s.http.patch(url(contactId, smsId), { countryCode: 'GB' }).expect(422);
    const c = (await s.http.get(`${CONTACTS}/${contactId}`).expect(200)).body.data;
    expect(c.smsNumbers[0].phoneNumber).toBe('+14155550161');
  });

  it('refuses a status outside the ContactSms list with 422 (rule enum)', async () => {
    for (const status of ['blocked', 'active', 'bounced', 'VERIFIED', '']) {
      const res = await s.http.patch(url(contactId, smsId), { status }).expect(422);
      expect(rulesOf(res.body, 'status')).toEqual(['enum']);
    }
    const res = await s.http.patch(url(contactId, smsId), { isPrimary: 'yes' }).expect(422);
    expect(rulesOf(res.body, 'isPrimary')).toEqual(['type']);
  });

  it('422s malformed ids and needs contacts:write', async () => {
    await s.http.patch(url('123', smsId), { status: 'verified' }).expect(422);
    await s.http.patch(url(contactId, 'abc'), { status: 'verified' }).expect(422);
    const reader = await createSession(app, { scopes: ['contacts:read'] });
    await reader.http.patch(url(contactId, smsId), { status: 'verified' }).expect(403);
  });
});
