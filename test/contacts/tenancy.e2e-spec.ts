// Another organization's contact, channel record, tag or list is a 404 on every route (§4), and
// nothing of it is changed or revealed.
import { INestApplication } from '@nestjs/common';
import { createTestApp } from '../support/app';
import { createSession, Session } from '../support/session';
import { CONTACTS, createContact, createList, LISTS, TAGS } from './contacts-support';

const CHANNELS: [path: string, key: string, body: Record<string, unknown>][] = [
  ['emails', 'emails', { email: 'theirs@tenant-b.example' }],
  ['sms', 'smsNumbers', { phoneNumber: '+14155550999' }],
  ['whatsapp', 'whatsappAccounts', { phoneNumber: '+447700900999' }],
  ['telegram', 'telegramAccounts', { phoneNumber: '+4915100000999', username: 'theirs' }],
  ['imessage', 'imessageAccounts', { appleId: 'theirs@icloud.example' }],
  ['push', 'pushNotifications', { deviceToken: 'their-device', platform: 'ios' }],
];

describe('Contacts tenancy', () => {
  let app: INestApplication;
  let a: Session;
  let b: Session;
  let mine: { id: string };
  let theirs: Record<string, unknown> & { id: string };
  let theirList: { id: string };
  let theirTag: { id: string };
  let myList: { id: string };
  let myTag: { id: string };

  beforeAll(async () => {
    app = await createTestApp();
    a = await createSession(app);
    b = await createSession(app);
    theirList = await createList(b, { name: 'B list' });
    theirs = await createContact(b, {
      firstName: 'Theirs',
      ...Object.fromEntries(CHANNELS.map(([, key, body]) => [key, [body]])),
      tags: ['b-tag'],
      listIds: [theirList.id],
    });
    theirTag = (theirs.tagRecords as { id: string }[])[0];
    mine = await createContact(a, { firstName: 'Mine', tags: ['a-tag'] });
    myTag = (await a.http.get(`${TAGS}/all`).expect(200)).body.data[0];
    myList = await createList(a, { name: 'A list' });
    await a.http.post(`${LISTS}/${myList.id}/members`, { contactIds: [mine.id] }).expect(200);
  });
  afterAll(() => app.close());

  const expect404 = async (res: Promise<{ status: number; body: { code?: string } }>) => {
    const r = await res;
    expect({ status: r.status, code: r.body.code }).toEqual({
      status: 404,
      code: 'E_ROW_NOT_FOUND',
    });
  };

  it('a contact of another organization is 404 on every contact route', async () => {
    const id = theirs.id;
    await expect404(a.http.get(`${CONTACTS}/${id}`));
    await expect404(a.http.patch(`${CONTACTS}/${id}`, { firstName: 'Hijacked' }));
    await expect404(a.http.delete(`${CONTACTS}/${id}`));
    await expect404(a.http.post(`${CONTACTS}/${id}/tags`, { names: ['x'] }));
    await expect404(a.http.delete(`${CONTACTS}/${id}/tags/${myTag.id}`));
    for (const [path, , body] of CHANNELS) {
      await expect404(a.http.post(`${CONTACTS}/${id}/${path}`, { ...body, isPrimary: true }));
    }
    await expect404(a.http.post(`${LISTS}/${myList.id}/members`, { contactIds: [id] }));
    await expect404(a.http.post(`${LISTS}/${myList.id}/members`, { contactIds: [mine.id, id] }));
    await expect404(a.http.post(`${LISTS}/${myList.id}/members/${id}/unsubscribe`, {}));
    await expect404(a.http.delete(`${LISTS}/${myList.id}/members/${id}`));
    // Not found by listing or search either.
    const list = await a.http.get(`${CONTACTS}?search=theirs@tenant-b.example`).expect(200);
    expect(list.body.data).toEqual([]);
    const byName = await a.http.get(`${CONTACTS}?search=Theirs`).expect(200);
    expect(byName.body.data).toEqual([]);
  });

  it('a channel record of another organization is 404 on every channel route, per channel', async () => {
    for (const [path, key] of CHANNELS) {
      const recordId = (theirs[key] as { id: string }[])[0].id;
      // Through their contact id and through one of ours.
      for (const contactId of [theirs.id, mine.id]) {
        await expect404(
          a.http.patch(`${CONTACTS}/${contactId}/${path}/${recordId}`, { isPrimary: false }),
        );
        await expect404(a.http.delete(`${CONTACTS}/${contactId}/${path}/${recordId}`));
      }
    }
  });

  it('a tag of another organization is 404 on every tag route', async () => {
    await expect404(a.http.get(`${TAGS}/${theirTag.id}`));
    await expect404(a.http.patch(`${TAGS}/${theirTag.id}`, { name: 'renamed' }));
    await expect404(a.http.delete(`${TAGS}/${theirTag.id}`));
    await expect404(a.http.delete(`${CONTACTS}/${mine.id}/tags/${theirTag.id}`));
    const all = await a.http.get(`${TAGS}/all`).expect(200);
    expect(all.body.data.map((t: { id: string }) => t.id)).not.toContain(theirTag.id);
    const paged = await a.http.get(TAGS).expect(200);
    expect(paged.body.data.map((t: { id: string }) => t.id)).not.toContain(theirTag.id);
    // Adding a tag by the same name creates our own tag, never attaches theirs.
    const added = await a.http
      .post(`${CONTACTS}/${mine.id}/tags`, { names: ['b-tag'] })
      .expect(200);
    expect(added.body.data.tagRecords.map((t: { id: string }) => t.id)).not.toContain(theirTag.id);
  });

  it('a list of another organization is 404 on every list route', async () => {
    const id = theirList.id;
    await expect404(a.http.get(`${LISTS}/${id}`));
    await expect404(a.http.patch(`${LISTS}/${id}`, { name: 'x' }));
    await expect404(a.http.delete(`${LISTS}/${id}`));
    await expect404(a.http.get(`${LISTS}/${id}/members`));
    await expect404(a.http.post(`${LISTS}/${id}/members`, { contactIds: [mine.id] }));
    await expect404(a.http.post(`${LISTS}/${id}/members/${theirs.id}/unsubscribe`, {}));
    await expect404(a.http.delete(`${LISTS}/${id}/members/${theirs.id}`));
    await expect404(a.http.post(CONTACTS, { firstName: 'x', listIds: [id] }));
    const lists = await a.http.get(LISTS).expect(200);
    expect(lists.body.data.map((l: { id: string }) => l.id)).not.toContain(id);
  });

  it('left everything of the other organization unchanged', async () => {
    const c = (await b.http.get(`${CONTACTS}/${theirs.id}`).expect(200)).body.data;
    expect(c.firstName).toBe('Theirs');
    expect(c.tags).toEqual(['b-tag']);
    for (const [, key] of CHANNELS) expect(c[key]).toHaveLength(1);
    expect(c[CHANNELS[0][1]][0].isPrimary).toBe(true);
    const l = (await b.http.get(`${LISTS}/${theirList.id}`).expect(200)).body.data;
    expect(l).toMatchObject({ name: 'B list', subscriberCount: 1 });
    const t = (await b.http.get(`${TAGS}/${theirTag.id}`).expect(200)).body.data;
    expect(t).toMatchObject({ name: 'b-tag', contactCount: 1 });
  });
});
