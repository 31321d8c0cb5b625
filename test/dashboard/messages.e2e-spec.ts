// An email sent through the API, found on the Messages page by its recipient, and its page
// showing the delivery attempt the worker recorded.
import { randomUUID } from 'node:crypto';
import { waitForMessage } from '../sending/support/sending';
import {
  DashboardStack,
  navigate,
  seriousA11yViolations,
  signIn,
  startDashboardStack,
} from './support/browser';

describe('dashboard messages', () => {
  let stack: DashboardStack;
  const recipient = `reader-${randomUUID().slice(0, 6)}@example.test`;

  beforeAll(async () => {
    stack = await startDashboardStack();
    await signIn(stack);
  });
  afterAll(() => stack.close());

  it('finds a sent email by recipient and shows its attempt', async () => {
    const { page, s } = stack;
    const sent = await s.http
      .post('/api/v1/send', {
        from: 'Shop <news@shop.example.test>',
        to: [recipient, 'other@example.test'],
        subject: 'Your order',
        text: 'Thanks for your order',
      })
      .expect(202);
    const jobId: string = sent.body.data.jobId;
    await waitForMessage(s.http, jobId, (m) => m.deliveryAttempts.length === 2);

    await navigate(page, 'Messages');
    await page.getByLabel('Recipient').fill(recipient);
    await page.waitForURL(/recipient=/);
    const row = page.getByRole('row').filter({ hasText: recipient });
    await row.waitFor();
    expect(await page.getByRole('row').count()).toBe(2); // header + the one message
    expect(await seriousA11yViolations(page)).toEqual([]);
    await row.getByRole('link').click();

    await page.getByRole('heading', { name: 'Message', level: 1 }).waitFor();
    await page.getByText(jobId).waitFor();
    const card = page.getByTestId(`recipient-${recipient}`);
    await card.getByText('delivered').waitFor();
    expect(await card.textContent()).toMatch(/250/);
    expect(await seriousA11yViolations(page)).toEqual([]);
  });
});
