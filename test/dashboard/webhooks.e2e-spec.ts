// Webhook endpoints in the dashboard: the spec's three messages, the secret shown once then only
// the placeholder, a test event delivered, and a delete that says what goes.
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  DashboardStack,
  navigate,
  seriousA11yViolations,
  signIn,
  startDashboardStack,
} from './support/browser';

describe('dashboard webhooks', () => {
  let stack: DashboardStack;
  let receiver: Server;
  let hookUrl: string;
  const received: string[] = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      req.on('data', () => undefined);
      req.on('end', () => {
        received.push(String(req.headers['x-webhook-event']));
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    stack = await startDashboardStack({ plan: 'free' }); // 3 endpoints at most
    for (let i = 1; i <= 3; i++) {
      await stack.s.http
        .post('/api/v1/user/webhook-endpoints', {
          url: `https://hooks${i}.example.test/in`,
          events: ['contact.created'],
        })
        .expect(201);
    }
    await signIn(stack);
  });
  afterAll(async () => {
    await stack.close();
    await new Promise((r) => receiver.close(r));
  });

  it('shows the messages for no event, a bad URL and the plan limit', async () => {
    const { page } = stack;
    await navigate(page, 'Webhooks');
    await page.getByRole('button', { name: 'New endpoint' }).click();
    const dialog = page.getByRole('dialog', { name: 'New webhook endpoint' });
    await dialog.getByLabel('Endpoint URL').fill(hookUrl);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Create endpoint' }).click();
    await dialog.getByText('Select at least one event').waitFor();

    await dialog.getByRole('checkbox', { name: 'email.delivered' }).check();
    await dialog.getByLabel('Endpoint URL').fill('not a url');
    await dialog.getByRole('button', { name: 'Create endpoint' }).click();
    await dialog.getByText('Please enter a valid URL').waitFor();

    // Passes the form's check, refused by the API (credentials in the URL): its 422, beside the field.
    await dialog.getByLabel('Endpoint URL').fill('https://user:secret@hooks.example.test/in');
    await dialog.getByRole('button', { name: 'Create endpoint' }).click();
    await dialog.getByText('Please enter a valid URL').waitFor();

    await dialog.getByLabel('Endpoint URL').fill(hookUrl);
    await dialog.getByRole('button', { name: 'Create endpoint' }).click();
    const alert = dialog.getByTestId('endpoint-form-error');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('Webhook endpoint limit reached');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  it('deletes an endpoint through a confirmation that says what goes', async () => {
    const { page } = stack;
    await page.getByRole('link', { name: 'https://hooks1.example.test/in' }).click();
    await page.getByRole('heading', { name: 'Webhook endpoint', level: 1 }).waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete webhook endpoint' });
    expect(await confirm.textContent()).toMatch(
      /the endpoint, its secret and its delivery history are deleted irreversibly/i,
    );
    expect(await seriousA11yViolations(page)).toEqual([]);
    await confirm.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page
      .getByRole('link', { name: 'https://hooks1.example.test/in' })
      .waitFor({ state: 'detached' });
    const list = await stack.s.http.get('/api/v1/user/webhook-endpoints').expect(200);
    expect(list.body.data.map((e: { url: string }) => e.url)).not.toContain(
      'https://hooks1.example.test/in',
    );
  });

  it('creates a good endpoint: the secret is shown once, then only the placeholder', async () => {
    const { page } = stack;
    await page.getByRole('button', { name: 'New endpoint' }).click();
    const dialog = page.getByRole('dialog', { name: 'New webhook endpoint' });
    await dialog.getByLabel('Endpoint URL').fill(hookUrl);
    await dialog.getByRole('checkbox', { name: 'contact.created' }).check();
    await dialog.getByLabel('Retries').fill('0');
    await dialog.getByRole('button', { name: 'Create endpoint' }).click();

    const secretBox = page.getByTestId('webhook-secret');
    await secretBox.waitFor();
    const secret = (await secretBox.textContent())!.trim();
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await secretBox.waitFor({ state: 'detached' });

    const row = page.getByRole('row').filter({ hasText: hookUrl });
    await row.waitFor();
    expect(await row.getByTestId('secret-placeholder').textContent()).toMatch(/^whsec_•+$/);
    expect(await page.content()).not.toContain(secret);

    // Retries 0 in the dashboard is one attempt in all (maxRetries 1).
    const created = (
      await stack.s.http.get('/api/v1/user/webhook-endpoints').expect(200)
    ).body.data.find((e: { url: string }) => e.url === hookUrl);
    expect(created.maxRetries).toBe(1);
  });

  it('sends a test event and shows the delivery with its attempt, then deletes the endpoint', async () => {
    const { page } = stack;
    await page.getByRole('link', { name: hookUrl }).click();
    await page.getByRole('button', { name: 'Send test event' }).click();
    const delivery = page.getByTestId('delivery').filter({ hasText: 'test.event' });
    await delivery.filter({ hasText: 'delivered' }).waitFor({ timeout: 20_000 });
    expect(received).toContain('test.event');
    await delivery.getByRole('button').first().click();
    await delivery.getByRole('cell', { name: '200' }).waitFor();
    expect(await page.content()).not.toMatch(/[0-9a-f]{64}/);

    await page.getByRole('button', { name: 'Delete' }).click();
    await page
      .getByRole('dialog', { name: 'Delete webhook endpoint' })
      .getByRole('button', { name: 'Delete endpoint' })
      .click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByRole('link', { name: hookUrl }).waitFor({ state: 'detached' });
  });
});
