// Contacts in the dashboard: create one (with a 422 shown beside its field), find it by search,
// open its detail with its channel records.
import { randomUUID } from 'node:crypto';
import {
  DashboardStack,
  navigate,
  seriousA11yViolations,
  signIn,
  startDashboardStack,
} from './support/browser';

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
});
