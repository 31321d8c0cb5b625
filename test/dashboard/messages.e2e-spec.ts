// The Messages page: an email sent through the API, found by its recipient, and its page showing
// the delivery attempt the worker recorded; an SMS sent through the Twilio fake beside it, each
// row naming its channel, and the Channel filter asking the API for one channel (channel=).
import { randomUUID } from 'node:crypto';
import { waitForMessage } from '../sending/support/sending';
import { TwilioFake } from '../support/providers/twilio-fake';
import {
  choose,
  DashboardStack,
  navigate,
  seriousA11yViolations,
  signIn,
  startDashboardStack,
  textEventually,
} from './support/browser';

describe('dashboard messages', () => {
  let stack: DashboardStack;
  let twilio: TwilioFake;
  const recipient = `reader-${randomUUID().slice(0, 6)}@example.test`;
  const phone = '+14155550161';
  let emailJob: string;
  let smsJob: string;

  beforeAll(async () => {
    twilio = await TwilioFake.start();
    stack = await startDashboardStack({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    await signIn(stack);
  });
  afterAll(async () => {
    await stack.close();
    await twilio.stop();
  });

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
    emailJob = sent.body.data.jobId;
    await waitForMessage(s.http, emailJob, (m) => m.deliveryAttempts.length === 2);

    await navigate(page, 'Messages');
    await page.getByLabel('Recipient').fill(recipient);
    await page.waitForURL(/recipient=/);
    const row = page.getByRole('row').filter({ hasText: recipient });
    await row.waitFor();
    expect(await page.getByRole('row').count()).toBe(2); // header + the one message
    expect(await seriousA11yViolations(page)).toEqual([]);
    await row.getByRole('link').click();

    await page.getByRole('heading', { name: 'Message', level: 1 }).waitFor();
    await page.getByText(emailJob).waitFor();
    const card = page.getByTestId(`recipient-${recipient}`);
    await card.getByText('delivered').waitFor();
    expect(await card.textContent()).toMatch(/250/);
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('shows each message’s channel, and the Channel filter asks the API for one channel', async () => {
    const { page, s } = stack;
    await s.http
      .post('/api/v1/user/channel-providers', {
        channel: 'sms',
        provider: 'twilio',
        name: 'Twilio',
        credentials: { accountSid: twilio.accountSid, authToken: twilio.authToken },
        settings: { from: '+15005550006', apiBaseUrl: twilio.baseUrl },
      })
      .expect(201);
    const sent = await s.http
      .post('/api/v1/send/sms', { to: { phoneNumber: phone }, content: { text: 'Your code' } })
      .expect(202);
    smsJob = sent.body.data.jobId;
    await waitForMessage(s.http, smsJob, (m) => m.status === 'sent');

    await navigate(page, 'Messages');
    // The list the first test loaded is fresh for 10 s: a reload asks the API again.
    await page.reload();
    const table = page.getByTestId('messages');
    const rowOf = (text: string) => table.getByRole('row').filter({ hasText: text });
    await rowOf(phone).waitFor();
    expect((await rowOf(phone).getByRole('cell').allTextContents()).slice(1)).toEqual([
      'SMS',
      phone,
      '+15005550006',
      'sent',
    ]);
    expect((await rowOf(recipient).getByRole('cell').allTextContents())[1]).toBe('Email');
    const channel = page.getByRole('combobox', { name: 'Channel' });
    expect(await channel.inputValue()).toBe('All');

    // The filter is the API's: the page asks for channel=sms and shows what comes back.
    const asked = page.waitForRequest(
      (r) => r.url().includes('/api/v1/user/messages?') && r.url().includes('channel=sms'),
    );
    await choose(page, 'Channel', 'SMS');
    await asked;
    await page.waitForURL(/[?&]channel=sms/);
    await rowOf(recipient).waitFor({ state: 'detached' });
    expect(await table.locator('tbody tr').count()).toBe(1);
    await rowOf(phone).waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);

    await choose(page, 'Channel', 'Push');
    await page.getByText('No Push message matches.').waitFor();
    expect(page.url()).toContain('channel=push');

    await choose(page, 'Channel', 'Email');
    await rowOf(recipient).waitFor();
    expect(await table.locator('tbody tr').count()).toBe(1);

    await choose(page, 'Channel', 'All');
    await rowOf(phone).waitFor();
    expect(await table.locator('tbody tr').count()).toBe(2);
    expect(page.url()).not.toContain('channel=');

    // A phone number is a recipient to search by too.
    await page.getByLabel('Recipient').fill(phone);
    await page.waitForURL(/recipient=/);
    await rowOf(recipient).waitFor({ state: 'detached' });
    expect(await table.locator('tbody tr').count()).toBe(1);
    await rowOf(phone).waitFor();

    // The SMS's own page names its channel and the provider's answer.
    await rowOf(phone).getByRole('link').click();
    await page.getByRole('heading', { name: 'Message', level: 1 }).waitFor();
    await page.getByText(smsJob).waitFor();
    await page.getByText('SMS', { exact: true }).waitFor();
    const card = page.getByTestId(`recipient-${phone}`);
    await textEventually(card, (t) => t.includes('sent') && t.includes('1 segment'));
    expect(await card.textContent()).not.toContain('SMTP');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });
});
