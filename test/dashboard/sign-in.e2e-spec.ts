// Sign-in, organization picker, sign-out and the 401 path of the dashboard, in a real browser.
import { DataSource } from 'typeorm';
import {
  addOrganization,
  DashboardStack,
  seriousA11yViolations,
  signIn,
  startDashboardStack,
  submitSignIn,
} from './support/browser';

describe('dashboard sign-in', () => {
  let stack: DashboardStack;

  beforeAll(async () => {
    stack = await startDashboardStack();
  });
  afterAll(() => stack.close());

  it('refuses a wrong password with the API message, then signs in to the overview', async () => {
    const { page } = stack;
    await page.goto(`${stack.baseUrl}/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.getByLabel('Email').fill(stack.email);
    await page.getByLabel(/^Password/).fill('not the right password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Invalid email or password' }).waitFor();
    await signIn(stack);
    expect(await page.getByTestId('current-organization').textContent()).toBe(stack.s.org.name);
  });

  it('signs out: the token is revoked and the sign-in form is back', async () => {
    const { page } = stack;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.goto(`${stack.baseUrl}/contacts`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  });

  it('a user of two organizations picks one and can switch', async () => {
    const { page } = stack;
    const second = await addOrganization(stack);
    await submitSignIn(stack);
    await page.getByRole('heading', { name: 'Choose an organization' }).waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.getByRole('button', { name: new RegExp(second.name) }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(await page.getByTestId('current-organization').textContent()).toBe(second.name);
    await page.getByRole('link', { name: 'Switch organization' }).click();
    await page.getByRole('button', { name: new RegExp(stack.s.org.name) }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(await page.getByTestId('current-organization').textContent()).toBe(stack.s.org.name);
  });

  it('a 401 on any call (token revoked elsewhere) returns to sign-in with a notice', async () => {
    const { page } = stack;
    // Revoke every live token of the user behind the dashboard's back.
    await stack.app.get(DataSource).query(
      `UPDATE access_tokens SET revoked_at = now()
          WHERE user_id = (SELECT id FROM users WHERE email = $1)`,
      [stack.email],
    );
    // A background refresh may meet the 401 before this click does: then the link is gone and the
    // sign-in page is already there, which is what this test waits for either way.
    const signIn = page.getByRole('heading', { name: 'Sign in' });
    await Promise.race([
      page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Contacts' })
        .click(),
      signIn.waitFor(),
    ]);
    await signIn.waitFor();
    await page.getByText('Your session has expired').waitFor();
  });
});
