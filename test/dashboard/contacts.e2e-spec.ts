// Contacts in the dashboard: create one (with a 422 shown beside its field), find it by search,
// open its detail with its channel records; each record's status says what it means for sending
// (an opted-out number with its time, an expired push token) and its last use where the API has one.
import { randomUUID } from 'node:crypto';
import {
  DashboardStack,
  navigate,
  seriousA11yViolations,
  signIn,
  startDashboardStack,
  textEventually,
} from './support/browser';
import type { Page } from 'playwright-core';

/** The fields of a channel record (the API's answer) that the test reads. */
interface ChannelRecord {
  id: string;
  isPrimary: boolean;
  createdAt: string;
  deviceToken: string;
  [key: string]: unknown;
}

/** A time as the page shows it: the browser's locale, medium date and short time. */
function shownTime(page: Page, iso: string): Promise<string> {
  return page.evaluate(
    (at) =>
      new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(
        new Date(at),
      ),
    iso,
  );
}

/** A day as the page shows it: the browser's locale, medium date. */
function shownDay(page: Page, iso: string): Promise<string> {
  return page.evaluate(
    (at) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' }).format(new Date(at)),
    iso,
  );
}

describe('dashboard contacts', () => {
  let stack: DashboardStack;
  const tag = randomUUID().slice(0, 6);
  const lastName = `Quartermaine${tag}`;
  const email = `zelda.${tag}@example.test`;

  beforeAll(async () => {
    stack = await startDashboardStack();
    await signIn(stack);
  });
  afterAll(() => stack.close());

  it('shows the empty state of a new organization', async () => {
    const { page } = stack;
    await navigate(page, 'Contacts');
    await page.getByText('No contacts yet').waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('creates a contact; the API’s 422 message is shown beside the email field', async () => {
    const { page } = stack;
    await page.getByRole('button', { name: 'New contact' }).click();
    const dialog = page.getByRole('dialog', { name: 'New contact' });
    await dialog.getByLabel('First name').fill('Zelda');
    await dialog.getByLabel('Last name').fill(lastName);
    await dialog.getByLabel('Email').fill('not-an-email');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Create contact' }).click();
    const emailInput = dialog.getByLabel('Email');
    await page.waitForFunction(
      (el) => el?.getAttribute('aria-invalid') === 'true',
      await emailInput.elementHandle(),
    );
    const describedBy = await emailInput.getAttribute('aria-describedby');
    const fieldError = await page.locator(`[id="${describedBy?.split(' ').pop()}"]`).textContent();
    expect(fieldError).toMatch(/email/i);

    await emailInput.fill(email);
    await dialog.getByRole('button', { name: 'Create contact' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('link', { name: `Zelda ${lastName}` }).waitFor();
  });

  it('finds the contact by a part of its name and by its exact email', async () => {
    const { page, s } = stack;
    await s.http
      .post('/api/v1/user/contacts', { firstName: 'Other', lastName: 'Person' })
      .expect(201);
    // A reload keeps the session (the cookie) and the page.
    await page.reload();
    await page.getByRole('heading', { name: 'Contacts', level: 1 }).waitFor();
    const search = page.getByLabel('Search');
    await search.fill(`termaine${tag}`);
    await page.waitForURL(/search=/);
    await page.getByRole('link', { name: `Zelda ${lastName}` }).waitFor();
    // The previous page stays on screen while the search runs; the other contact then goes.
    await page.getByRole('link', { name: 'Other Person' }).waitFor({ state: 'detached' });

    await search.fill(email);
    await page.waitForURL(new RegExp(`search=${encodeURIComponent(email).replace('.', '\\.')}`));
    await page.getByRole('link', { name: `Zelda ${lastName}` }).waitFor();

    await search.fill('nobody-by-this-name');
    await page.getByText('No contact matches').waitFor();
  });

  it('opens the contact with its email record, tags and lists', async () => {
    const { page } = stack;
    await page.getByLabel('Search').fill(lastName);
    await page.getByRole('link', { name: `Zelda ${lastName}` }).click();
    await page.getByRole('heading', { name: `Zelda ${lastName}`, level: 1 }).waitFor();
    await page.getByRole('cell', { name: email }).waitFor();
    const tags = page.getByRole('combobox', { name: 'Add tags' });
    await tags.fill('vip');
    await tags.press('Enter');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('button', { name: 'Remove tag vip' }).waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('shows each channel record’s consent status and its last use', async () => {
    const { page, s } = stack;
    const seen = '2026-03-02T10:15:00.000Z';
    const active = '2026-03-04T08:00:00.000Z';
    const pushed = '2026-03-05T17:45:00.000Z';
    const created = await s.http
      .post('/api/v1/user/contacts', {
        firstName: 'Ada',
        lastName: `Channels${tag}`,
        smsNumbers: [
          { phoneNumber: '+14155550142', status: 'opted_out', isPrimary: true },
          { phoneNumber: '+14155550143', status: 'unverified' },
        ],
        whatsappAccounts: [{ phoneNumber: '+14155550144', status: 'verified', lastSeenAt: seen }],
        telegramAccounts: [
          { phoneNumber: '+14155550145', username: 'ada_channels', lastActiveAt: active },
        ],
        imessageAccounts: [{ appleId: `ada.${tag}@icloud.example.test`, status: 'invalid' }],
        pushNotifications: [
          {
            deviceToken: `expired-token-${tag}-0123456789`,
            platform: 'ios',
            status: 'expired',
            lastUsedAt: pushed,
          },
          { deviceToken: `fresh-token-${tag}-0123456789`, platform: 'android' },
        ],
      })
      .expect(201);
    const c = created.body.data;
    const optedOutAt: string = c.smsNumbers.find(
      (r: { status: string }) => r.status === 'opted_out',
    ).optedOutAt;
    expect(optedOutAt).toEqual(expect.any(String));

    await page.goto(`${stack.baseUrl}/contacts/${c.id}`);
    await page.getByRole('heading', { name: `Ada Channels${tag}`, level: 1 }).waitFor();
    const table = page.getByTestId('contact-channels');
    const cells = async (r: { id: string }) =>
      table.locator(`tr[data-record-id="${r.id}"]`).getByRole('cell').allTextContents();
    // The record cell: the channel, "primary" on the channel's primary record, the address, the
    // day it was added.
    const record = async (channel: string, value: string, r: ChannelRecord) =>
      `${channel}${r.isPrimary ? 'primary' : ''}${value}added ${await shownDay(page, r.createdAt)}`;
    const byValue = (list: ChannelRecord[], key: string, value: string) =>
      list.find((r) => r[key] === value) as ChannelRecord;

    const optedOut = byValue(c.smsNumbers, 'phoneNumber', '+14155550142');
    expect(await cells(optedOut)).toEqual([
      await record('SMS', '+14155550142', optedOut),
      `opted outOpted out ${await shownTime(page, optedOutAt)}: no SMS is sent`,
      '—',
    ]);
    const unverified = byValue(c.smsNumbers, 'phoneNumber', '+14155550143');
    expect(await cells(unverified)).toEqual([
      await record('SMS', '+14155550143', unverified),
      'unverified',
      '—',
    ]);
    const whatsapp = c.whatsappAccounts[0];
    expect(await cells(whatsapp)).toEqual([
      await record('WhatsApp', '+14155550144', whatsapp),
      `verifiedVerified ${await shownTime(page, whatsapp.verifiedAt)}`,
      `${await shownTime(page, seen)}last seen`,
    ]);
    const telegram = c.telegramAccounts[0];
    expect(await cells(telegram)).toEqual([
      await record('Telegram', '+14155550145 · @ada_channels', telegram),
      'active',
      `${await shownTime(page, active)}last active`,
    ]);
    const imessage = c.imessageAccounts[0];
    expect(await cells(imessage)).toEqual([
      await record('iMessage', `ada.${tag}@icloud.example.test`, imessage),
      'invalidNot a reachable address: no message is sent',
      '—',
    ]);
    const expired = byValue(c.pushNotifications, 'platform', 'ios');
    expect(await cells(expired)).toEqual([
      await record('Push (ios)', `${expired.deviceToken.slice(0, 16)}…`, expired),
      'expiredThe device token no longer works: no push is sent',
      `${await shownTime(page, pushed)}last push sent`,
    ]);
    const fresh = byValue(c.pushNotifications, 'platform', 'android');
    expect(await cells(fresh)).toEqual([
      await record('Push (android)', `${fresh.deviceToken.slice(0, 16)}…`, fresh),
      'active',
      '—',
    ]);
    expect(await seriousA11yViolations(page)).toEqual([]);

    // A number that texts START again (here: set through the API) reads as sendable once more.
    await s.http
      .patch(`/api/v1/user/contacts/${c.id}/sms/${optedOut.id}`, { status: 'verified' })
      .expect(200);
    await page.reload();
    await textEventually(
      table.locator(`tr[data-record-id="${optedOut.id}"]`).getByRole('cell').nth(1),
      (t) => t.startsWith('verifiedVerified'),
    );
  });
});
