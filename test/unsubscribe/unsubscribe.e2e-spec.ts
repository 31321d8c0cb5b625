// One-click unsubscribe (§14, RFC 8058) end to end: campaign mail reaches a real SMTP
// sink with both List-Unsubscribe headers and a visible link; a POST of `List-Unsubscribe=One-Click`
// to the header's URL, with no credential, unsubscribes (membership, engagement event, webhook at a
// real receiver); a repeat and a GET change nothing; a forged token is a 404; the next campaign
// skips the contact; an organization's token never touches another's data.
import { randomUUID } from 'node:crypto';
import type { ParsedMail } from 'mailparser';
import { waitForMessage } from '../sending/support/sending';
import { holdsFor, waitFor } from '../support/wait-for';
import { createSession } from '../support/session';
import {
  BOUNCE_DOMAIN,
  createContact,
  createList,
  header,
  memberships,
  received,
  Stack,
  startStack,
  stopStack,
  waitForEvent,
} from './support/stack';

const CAMPAIGNS = '/api/v1/user/campaigns';

/** POSTs the RFC 8058 body to a URL as a mail client does: no credential, no cookie. */
function oneClick(url: string, init: RequestInit = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'List-Unsubscribe=One-Click',
    redirect: 'manual',
    ...init,
  });
}

describe('One-click unsubscribe', () => {
  let stack: Stack;
  let listId: string;
  let otherListId: string;
  const ann = `ann-${randomUUID().slice(0, 8)}@example.org`;
  const bob = `bob-${randomUUID().slice(0, 8)}@example.org`;
  let annId: string;
  let bobId: string;

  beforeAll(async () => {
    stack = await startStack();
    listId = await createList(stack, stack.s.org.id, 'News');
    otherListId = await createList(stack, stack.s.org.id, 'Offers');
    annId = await createContact(stack, stack.s.org.id, ann, [listId, otherListId]);
    bobId = await createContact(stack, stack.s.org.id, bob, [listId]);
  });
  afterAll(() => stopStack(stack));

  /** Sends a campaign to `list` and answers the sink messages it produced, by recipient. */
  async function sendCampaign(list: string, extra: Record<string, unknown> = {}) {
    const before = stack.sink.messages.length;
    const created = await stack.s.http
      .post(CAMPAIGNS, {
        name: 'Spring sale',
        subject: `Sale ${randomUUID().slice(0, 6)}`,
        html: '<html><body><p>Hello</p></body></html>',
        text: 'Hello',
        from: 'Shop <news@shop.example>',
        listId: list,
        ...extra,
      })
      .expect(201);
    const id = created.body.data.id as string;
    await stack.s.http.post(`${CAMPAIGNS}/${id}/send`).expect(202);
    await waitFor(
      async () => {
        const res = await stack.s.http.get(`${CAMPAIGNS}/${id}`);
        return res.body.data.status === 'sent';
      },
      { what: 'campaign sent', timeoutMs: 30_000 },
    );
    const [{ n }]: { n: number }[] = await stack.ds.query(
      `SELECT count(*)::int AS n FROM messages WHERE campaign_id = $1`,
      [id],
    );
    await stack.sink.waitForMessages(before + n, 30_000);
    const byRecipient = new Map<string, ParsedMail>();
    for (const m of stack.sink.messages.slice(before)) byRecipient.set(m.to[0], m.parsed);
    return { id, byRecipient };
  }

  const targetsOf = (parsed: ParsedMail) => {
    const value = header(parsed, 'List-Unsubscribe')!;
    const m = /^<([^>]+)>,\s*<mailto:([^>]+)>$/.exec(value);
    expect(m).not.toBeNull();
    return { url: m![1], mailto: m![2] };
  };

  let annUrl: string;
  let bobUrl: string;
  let annJobId: string;

  it('sends campaign mail with both List-Unsubscribe headers and a visible link', async () => {
    const { byRecipient } = await sendCampaign(listId, {
      text: 'Hello. Leave any time: {{unsubscribe_url}}',
    });
    const mail = byRecipient.get(ann)!;
    const { url, mailto } = targetsOf(mail);
    const token = /\/u\/([0-9a-z]{46})$/.exec(url)![1];
    expect(url).toBe(`${stack.baseUrl}/u/${token}`);
    expect(mailto).toBe(`unsubscribe+${token}@${BOUNCE_DOMAIN}`);
    expect(header(mail, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    // The placeholder of the text is replaced; the HTML had none and gets a footer.
    expect(mail.text).toContain(`Leave any time: ${url}`);
    expect(mail.text).not.toContain('{{unsubscribe_url}}');
    expect(mail.html).toContain(`<a href="${url}">Unsubscribe</a>`);
    // Each recipient has a link of their own.
    bobUrl = targetsOf(byRecipient.get(bob)!).url;
    expect(bobUrl).not.toBe(url);
    annUrl = url;
    const [row]: { job_id: string }[] = await stack.ds.query(
      `SELECT job_id FROM messages WHERE contact_id = $1 ORDER BY created_at DESC LIMIT 1`,
      [annId],
    );
    annJobId = row.job_id;
  });

  it('GET shows a page with one button that POSTs, and changes nothing', async () => {
    const res = await fetch(bobUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await res.text();
    expect(page).toMatch(/<form method="post">/);
    expect(page).toContain('name="List-Unsubscribe" value="One-Click"');
    expect((page.match(/<button/g) ?? []).length).toBe(1);
    expect((await memberships(stack, bobId)).map((m) => m.status)).toEqual(['subscribed']);
  });

  it('POST with no credential unsubscribes from the campaign list, with event and webhook', async () => {
    const res = await oneClick(annUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toBeNull();
    const rows = await memberships(stack, annId);
    const news = rows.find((m) => m.contact_list_id === listId)!;
    expect(news).toMatchObject({ status: 'unsubscribed', unsubscribe_reason: 'one-click' });
    // A list campaign unsubscribes from its list only.
    expect(rows.find((m) => m.contact_list_id === otherListId)!.status).toBe('subscribed');
    const event = await waitForEvent(stack, 'contact.unsubscribed', (d) => d.contactId === annId);
    expect(event).toEqual({ contactId: annId, contactListId: listId, reason: 'one-click' });
    const message = await waitForMessage(stack.s.http, annJobId, (m) =>
      m.engagementEvents.some((e) => e.type === 'unsubscribed'),
    );
    expect(message.engagementEvents.filter((e) => e.type === 'unsubscribed')).toHaveLength(1);
    const [{ count }]: { count: number }[] = await stack.ds.query(
      `SELECT subscriber_count AS count FROM contact_lists WHERE id = $1`,
      [listId],
    );
    expect(count).toBe(1);
  });

  it('a second POST answers 200 and changes nothing', async () => {
    const before = (await memberships(stack, annId)).find((m) => m.contact_list_id === listId)!;
    const res = await oneClick(annUrl);
    expect(res.status).toBe(200);
    const after = (await memberships(stack, annId)).find((m) => m.contact_list_id === listId)!;
    expect(after.unsubscribed_at).toEqual(before.unsubscribed_at);
    await holdsFor(
      () => received(stack, 'contact.unsubscribed', (d) => d.contactId === annId).length === 1,
      { what: 'one contact.unsubscribed', forMs: 1500 },
    );
    const message = await waitForMessage(stack.s.http, annJobId, () => true);
    expect(message.engagementEvents.filter((e) => e.type === 'unsubscribed')).toHaveLength(1);
  });

  it('also takes the POST a mail client sends as multipart/form-data', async () => {
    const form = new FormData();
    form.set('List-Unsubscribe', 'One-Click');
    const res = await fetch(bobUrl, { method: 'POST', body: form });
    expect(res.status).toBe(200);
    expect((await memberships(stack, bobId))[0]).toMatchObject({ status: 'unsubscribed' });
  });

  it('answers 404 to a forged, altered or foreign-looking token, GET or POST', async () => {
    const token = annUrl.slice(-46);
    const flipped = token.slice(0, -1) + (token.endsWith('0') ? '1' : '0');
    for (const bad of [flipped, '0'.repeat(46), 'x', token.slice(0, 26)]) {
      const url = `${stack.baseUrl}/u/${bad}`;
      const post = await oneClick(url);
      expect(post.status).toBe(404);
      expect(await post.json()).toMatchObject({ success: false, code: 'E_ROW_NOT_FOUND' });
      expect((await fetch(url)).status).toBe(404);
    }
  });

  it('the next campaign to that list does not reach the contact', async () => {
    const carol = `carol-${randomUUID().slice(0, 8)}@example.org`;
    await createContact(stack, stack.s.org.id, carol, [listId]);
    const { byRecipient } = await sendCampaign(listId);
    expect([...byRecipient.keys()]).toEqual([carol]);
  });

  it('an API send carries the headers when it asks and names its contact (422 without)', async () => {
    const dave = `dave-${randomUUID().slice(0, 8)}@example.org`;
    const daveId = await createContact(stack, stack.s.org.id, dave, [listId, otherListId]);
    const body = {
      from: 'Shop <news@shop.example>',
      to: dave,
      subject: 'Receipt',
      text: 'Thanks',
      contactId: daveId,
      listUnsubscribe: true,
    };
    const bad = await stack.s.http
      .post('/api/v1/send', { ...body, contactId: undefined })
      .expect(422);
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'listUnsubscribe' })]);
    const before = stack.sink.messages.length;
    await stack.s.http.post('/api/v1/send', body).expect(202);
    const [m] = (await stack.sink.waitForMessages(before + 1)).slice(before);
    const { url } = targetsOf(m.parsed);
    expect(m.parsed.text).toContain(`Unsubscribe: ${url}`);
    // An API send unsubscribes from every list.
    expect((await oneClick(url)).status).toBe(200);
    expect((await memberships(stack, daveId)).map((r) => r.status)).toEqual([
      'unsubscribed',
      'unsubscribed',
    ]);
    // Without listUnsubscribe nothing is added.
    await stack.s.http.post('/api/v1/send', { ...body, listUnsubscribe: undefined }).expect(202);
    const [plain] = (await stack.sink.waitForMessages(before + 2)).slice(before + 1);
    expect(header(plain.parsed, 'List-Unsubscribe')).toBeNull();
  });

  it("never changes another organization's data", async () => {
    // Organization B holds a contact with the same address on a list of its own.
    const b = await createSession(stack.app, { plan: 'pro' });
    const bList = await createList(stack, b.org.id, 'B news');
    const bAnn = await createContact(stack, b.org.id, ann, [bList]);
    const eve = `eve-${randomUUID().slice(0, 8)}@example.org`;
    const eveId = await createContact(stack, stack.s.org.id, eve, [listId]);
    const { byRecipient } = await sendCampaign(listId);
    expect((await oneClick(targetsOf(byRecipient.get(eve)!).url)).status).toBe(200);
    expect((await memberships(stack, eveId))[0].status).toBe('unsubscribed');
    // Ann's token again: A's data only, and B's Ann stays subscribed.
    expect((await oneClick(annUrl)).status).toBe(200);
    expect(await memberships(stack, bAnn)).toEqual([
      expect.objectContaining({ contact_list_id: bList, status: 'subscribed' }),
    ]);
  });
});
