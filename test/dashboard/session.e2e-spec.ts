// The dashboard's session across page loads (§15), in a real browser: the HttpOnly cookie keeps a
// reload and a new tab signed in, a deep link survives the sign-in, sign-out ends it for good.
import type { Page } from 'playwright-core';
import {
  addOrganization,
  DashboardStack,
  PASSWORD,
  signIn,
  startDashboardStack,
  submitSignIn,
  textEventually,
} from './support/browser';

describe('dashboard session', () => {
  let stack: DashboardStack;

  beforeAll(async () => {
    stack = await startDashboardStack();
  });
  afterAll(() => stack.close());

  const heading = (page: Page, name: string) =>
    page.getByRole('heading', { name, level: 1 }).waitFor();

  it('a reload stays signed in, and no script can read the token', async () => {
    const { page } = stack;
    await signIn(stack);
    await page.reload();
    await heading(page, 'Overview');
    expect(await page.getByTestId('current-organization').textContent()).toBe(stack.s.org.name);

    const cookies = await page.context().cookies();
    expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite, c.path])).toEqual([
      ['mp_session', true, 'Strict', '/'],
    ]);
    const readable = await page.evaluate(() => ({
      cookie: document.cookie,
      storage: JSON.stringify({ ...localStorage, ...sessionStorage }),
    }));
    expect(readable.cookie).toBe('');
    expect(readable.storage).not.toContain(cookies[0].value);
  });

  it('a deep link opened in a new tab is signed in and on that page', async () => {
    const tab = await stack.page.context().newPage();
    try {
      await tab.goto(`${stack.baseUrl}/contacts`);
      await heading(tab, 'Contacts');
      expect(tab.url()).toBe(`${stack.baseUrl}/contacts`);
    } finally {
      await tab.close();
    }
  });

  it('a deep link while signed out returns to that page after sign-in', async () => {
    const context = await stack.browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${stack.baseUrl}/api-keys`);
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.getByLabel('Email').fill(stack.email);
      await page.getByLabel(/^Password/).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await heading(page, 'API keys');
      expect(page.url()).toBe(`${stack.baseUrl}/api-keys`);
    } finally {
      await context.close();
    }
  });

  it('sign-out, then a reload: the sign-in page', async () => {
    const { page } = stack;
    await page.goto(`${stack.baseUrl}/`);
    await heading(page, 'Overview');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.context().cookies()).toEqual([]);
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.goto(`${stack.baseUrl}/contacts`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  });

  it('the organization picked stays picked across a reload', async () => {
    const { page } = stack;
    const second = await addOrganization(stack);
    await submitSignIn(stack);
    await page.getByRole('button', { name: new RegExp(second.name) }).click();
    await heading(page, 'Overview');
    await page.reload();
    await heading(page, 'Overview');
    await textEventually(page.getByTestId('current-organization'), (t) => t === second.name);
  });
});
