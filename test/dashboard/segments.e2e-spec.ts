// A dynamic segment built in the dashboard: the live count follows the rules, and the saved
// segment's count changes when a contact changes.
import { randomUUID } from 'node:crypto';
import {
  choose,
  DashboardStack,
  navigate,
  seriousA11yViolations,
  signIn,
  startDashboardStack,
  textEventually,
} from './support/browser';

describe('dashboard segments', () => {
  let stack: DashboardStack;
  const family = `Segfam${randomUUID().slice(0, 6)}`;

  beforeAll(async () => {
    stack = await startDashboardStack();
    for (const firstName of ['Ada', 'Bob', 'Cy']) {
      await stack.s.http
        .post('/api/v1/user/contacts', { firstName, lastName: family, status: 'active' })
        .expect(201);
    }
    await signIn(stack);
  });
  afterAll(() => stack.close());

  it('builds a dynamic segment with a live count, saves it, and sees the count follow a contact', async () => {
    const { page } = stack;
    await navigate(page, 'Segments');
    await page.getByRole('link', { name: 'New segment' }).click();
    await page.getByRole('heading', { name: 'New segment', level: 1 }).waitFor();
    await page.getByLabel('Name').fill(`Inactive ${family}`);

    await choose(page, 'Field of condition 1', 'Last name');
    await page.getByLabel('Value of condition 1').fill(family);
    const count = page.getByTestId('segment-count');
    await textEventually(count, (t) => t === '3');

    await page.getByRole('button', { name: 'Add condition' }).click();
    await choose(page, 'Field of condition 2', 'Status');
    await choose(page, 'Value of condition 2', 'inactive');
    await textEventually(count, (t) => t === '0');
    expect(await seriousA11yViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Create segment' }).click();
    await page.getByRole('heading', { name: `Inactive ${family}`, level: 1 }).waitFor();
    await page.getByText('No contact matches this segment now').waitFor();

    // Bob becomes inactive, through the dashboard's contact page.
    await navigate(page, 'Contacts');
    await page.getByLabel('Search').fill(`Bob`);
    await page.getByRole('link', { name: `Bob ${family}` }).click();
    await page.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit contact' });
    await choose(page, 'Status', 'inactive');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await textEventually(page.getByTestId('contact-status'), (t) => t === 'inactive');

    await navigate(page, 'Segments');
    await page.getByRole('link', { name: `Inactive ${family}` }).click();
    await textEventually(count, (t) => t === '1');
    await page.getByRole('link', { name: `Bob ${family}` }).waitFor();
    await textEventually(page.getByTestId('segment-member-total'), (t) => t === '(1)');
  });
});
