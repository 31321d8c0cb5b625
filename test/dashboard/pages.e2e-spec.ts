// Campaigns and API keys in the dashboard, then every page's accessibility basics: no serious
// axe violation, and forms and dialogs usable with the keyboard alone.
import { seedList } from '../campaigns/fixtures';
import { client } from '../support/session';
import {
  DashboardStack,
  navigate,
  seriousA11yViolations,
  signIn,
  startDashboardStack,
  textEventually,
  choose,
} from './support/browser';

const PAGES: [string, string][] = [
  ['Overview', 'Overview'],
  ['Contacts', 'Contacts'],
  ['Lists', 'Lists'],
  ['Segments', 'Segments'],
  ['Imports', 'Imports'],
  ['Messages', 'Messages'],
  ['Campaigns', 'Campaigns'],
  ['Revenue', 'Revenue'],
  ['Webhooks', 'Webhooks'],
  ['API keys', 'API keys'],
  ['Sending domains', 'Sending domains'],
  ['Channels', 'Channels'],
];

describe('dashboard campaigns, API keys and every page', () => {
  let stack: DashboardStack;
  let listName: string;

  beforeAll(async () => {
    stack = await startDashboardStack();
    const list = await seedList(stack.app, stack.s.org.id, { subscribed: 2 });
    listName = (await stack.s.http.get(`/api/v1/user/contact-lists/${list.listId}`).expect(200))
      .body.data.name;
    await signIn(stack);
  });
  afterAll(() => stack.close());

  it('creates a campaign for a list, sends it and watches it reach sent', async () => {
    const { page } = stack;
    await navigate(page, 'Campaigns');
    await page.getByRole('button', { name: 'New campaign' }).click();
    const dialog = page.getByRole('dialog', { name: 'New campaign' });
    await dialog.getByLabel('Name').fill('Autumn news');
    await dialog.getByLabel('From').fill('Shop <news@shop.example.test>');
    await dialog.getByLabel('Subject').fill('What is new this autumn');
    await choose(page, 'List', new RegExp(listName));
    await dialog.getByLabel('Text').fill('Hello! {{unsubscribe_url}}');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Create draft' }).click();
    await page.getByRole('heading', { name: 'Autumn news', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Send campaign' }).click();
    await page
      .getByRole('dialog', { name: 'Send campaign' })
      .getByRole('button', { name: 'Send now' })
      .click();
    await textEventually(page.getByTestId('campaign-status'), (t) => t === 'sent', 30_000);
    expect(await page.getByTestId('campaign-percent').textContent()).toBe('100 %');
    expect(await page.getByTestId('campaign-sent').textContent()).toBe('2');
  });

  it('issues an API key shown once, which works until it is revoked', async () => {
    const { page, app } = stack;
    await navigate(page, 'API keys');
    await page.getByRole('button', { name: 'New API key' }).click();
    const dialog = page.getByRole('dialog', { name: 'New API key' });
    await dialog.getByLabel('Name').fill('reporting');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await dialog.getByText('Choose at least one scope').waitFor();
    await dialog.getByRole('checkbox', { name: 'contacts:read' }).check();
    await dialog.getByRole('checkbox', { name: 'domains:read' }).check();
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const value = (await page.getByTestId('api-key-value').textContent())!.trim();
    expect(value).toMatch(/^bk_live_[A-Za-z0-9]{40}$/);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    const row = page.getByRole('row').filter({ hasText: 'reporting' });
    await row.waitFor();
    expect(await row.textContent()).toContain(value.slice(0, 12));
    expect(await page.content()).not.toContain(value);

    const withKey = client(app, { 'X-API-Key': value });
    await withKey.get('/api/v1/user/contacts').expect(200);
    await withKey.get('/api/v1/user/sending-domains').expect(200);
    await withKey.post('/api/v1/user/sending-domains', { name: 'reporting.test' }).expect(403);
    await row.getByRole('button', { name: 'Revoke reporting' }).click();
    await page
      .getByRole('dialog', { name: 'Revoke API key' })
      .getByRole('button', { name: 'Revoke key' })
      .click();
    await textEventually(row, (t) => t.includes('revoked'));
    await withKey.get('/api/v1/user/contacts').expect(401);
  });

  it('every page has no serious or critical axe violation', async () => {
    const { page } = stack;
    for (const [label, heading] of PAGES) {
      await navigate(page, label, heading);
      await page.waitForLoadState('networkidle');
      expect({ page: label, violations: await seriousA11yViolations(page) }).toEqual({
        page: label,
        violations: [],
      });
    }
  });

  it('the accessibility check names what a page gets wrong', async () => {
    const page = await stack.page.context().newPage();
    await page.setContent(`<!doctype html><html lang="en"><title>Broken</title><main>
      <h1>Broken</h1>
      <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
      <button></button>
      <p style="color: #bbb; background: #fff">Pale grey on white</p>
    </main></html>`);
    const found = (await seriousA11yViolations(page)).map((v) => v.split(' ')[0]);
    await page.close();
    expect(found.sort()).toEqual(['button-name', 'color-contrast', 'image-alt']);
  });

  it('forms and dialogs work with the keyboard alone', async () => {
    const { page } = stack;
    await navigate(page, 'Lists');
    const open = page.getByRole('button', { name: 'New list' });
    await open.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'New list' });
    await dialog.waitFor();
    // Focus starts inside the dialog, on its first field; typing and Tab move through it.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-autofocus'))).toBe(
      'true',
    );
    await page.keyboard.type('Keyboard list');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Made without a mouse');
    // Escape closes without saving, and focus returns to the button that opened it.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await open.evaluate((el) => el === document.activeElement)).toBe(true);

    await page.keyboard.press('Enter');
    await dialog.waitFor();
    // The dialog moves focus to its first field once it has opened; typing waits for that.
    await page.waitForFunction(
      () => document.activeElement?.getAttribute('data-autofocus') === 'true',
    );
    await page.keyboard.type('Keyboard list');
    await page.keyboard.press('Enter'); // submits the form
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('link', { name: 'Keyboard list' }).waitFor();
  });
});
