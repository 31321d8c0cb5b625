// The Channels page against the loopback Twilio and FCM fakes (WEBHOOK_ALLOW_PRIVATE_TARGETS lets
// an account's API base URL point at loopback): a Twilio account connected through the form (a
// wrong Account SID refused with the API's message beside its field), listed as active and the
// SMS default, a test SMS that the fake receives and the page reports as accepted; an FCM key
// pasted as JSON and parsed in the browser; disable and enable; delete through a confirmation;
// an account's settings edited (name, throughput, sender; the API's 422 on its field), its
// credentials kept when left empty and replaced when filled in (the fake's answers prove which were
// used); make default. A Telegram bot connected against the Telegram fake (the platform sets the
// bot's webhook on save) and a WhatsApp number against the WhatsApp fake, listed with their status,
// the WhatsApp page showing the callback URL that Meta's verification then passes; an HTTP endpoint
// whose generated secret is shown once.
import { FcmFake } from '../support/providers/fcm-fake';
import { TelegramFake } from '../support/providers/telegram-fake';
import { TwilioFake } from '../support/providers/twilio-fake';
import { WhatsappFake } from '../support/providers/whatsapp-fake';
import { waitFor } from '../support/wait-for';
import {
  DashboardStack,
  navigate,
  seriousA11yViolations,
  signIn,
  startDashboardStack,
  textEventually,
} from './support/browser';
import type { Locator, Page } from 'playwright-core';

const BASE = '/api/v1/user/channel-providers';

/** The messages read with an input: its description and its error. */
async function describedText(page: Page, input: Locator): Promise<string[]> {
  const ids = (await input.getAttribute('aria-describedby'))?.split(' ').filter(Boolean) ?? [];
  return Promise.all(
    ids.map(async (id) => (await page.locator(`[id="${id}"]`).textContent()) ?? ''),
  );
}

/** Waits until an input is invalid and its messages include `text` (the API answers later). */
async function fieldSays(page: Page, input: Locator, text: string): Promise<void> {
  await waitFor(
    async () =>
      (await input.getAttribute('aria-invalid')) === 'true' &&
      (await describedText(page, input)).join(' ').includes(text),
    { what: `the field's message "${text}"`, timeoutMs: 15_000, everyMs: 100 },
  );
}

/** Closes the change notifications, which sit over the header's buttons. */
async function dismissNotifications(page: Page): Promise<void> {
  const close = page.getByRole('button', { name: 'Close notification' });
  // One closing moves the others (and a closing one detaches mid-click): try again until none.
  while ((await close.count()) > 0) {
    await close
      .first()
      .click({ timeout: 2_000 })
      .catch(() => undefined);
  }
}

describe('dashboard channels', () => {
  let stack: DashboardStack;
  let twilio: TwilioFake;
  let fcm: FcmFake;
  let telegram: TelegramFake;
  let whatsapp: WhatsappFake;

  beforeAll(async () => {
    twilio = await TwilioFake.start();
    fcm = new FcmFake();
    await fcm.start();
    // The Bot API server's local mode takes the plain-HTTP loopback callback URL.
    telegram = await TelegramFake.start({ localMode: true });
    whatsapp = await WhatsappFake.start();
    stack = await startDashboardStack({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    await signIn(stack);
  });
  afterAll(async () => {
    await stack.close();
    await Promise.all([twilio.stop(), fcm.stop(), telegram.stop(), whatsapp.stop()]);
  });

  it('connects Twilio: a wrong Account SID is refused beside its field, then the account is active and the SMS default', async () => {
    const { page } = stack;
    await navigate(page, 'Channels');
    await page.getByText('No providers yet').waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Connect a provider' }).click();
    const dialog = page.getByRole('dialog', { name: 'Connect a provider' });
    expect(await dialog.getByRole('radio', { name: 'Twilio (SMS)' }).isChecked()).toBe(true);
    await dialog.getByLabel(/^Name/).fill('Twilio production');
    const sid = dialog.getByLabel('Account SID');
    expect(await sid.getAttribute('type')).toBe('password');
    await sid.fill('AC123');
    await dialog.getByLabel('Auth Token').fill(twilio.authToken);
    await dialog.getByLabel('From', { exact: true }).fill('+14155550100');
    await dialog.getByRole('button', { name: 'Advanced' }).click();
    await dialog.getByLabel('API base URL').fill(twilio.baseUrl);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await dialog.getByText('accountSid must be AC followed by 32 hex digits').waitFor();
    expect(await sid.getAttribute('aria-invalid')).toBe('true');
    expect(await describedText(page, sid)).toContain(
      'accountSid must be AC followed by 32 hex digits',
    );
    expect(await seriousA11yViolations(page)).toEqual([]);

    await sid.fill(twilio.accountSid);
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await page.getByRole('heading', { name: 'Twilio production', level: 1 }).waitFor();
    expect(await page.getByTestId('provider-status').textContent()).toBe('active');
    expect(await page.getByTestId('provider-default').textContent()).toBe('Yes, for SMS');
    const html = await page.content();
    expect(html).not.toContain(twilio.authToken);
    expect(html).not.toContain(twilio.accountSid);
    expect(await seriousA11yViolations(page)).toEqual([]);

    await navigate(page, 'Channels');
    const row = page
      .getByTestId('providers')
      .getByRole('row')
      .filter({ hasText: 'Twilio production' });
    const cells = await row.getByRole('cell').allTextContents();
    expect(cells).toEqual([
      'Twilio productiondefault',
      'SMS',
      'Twilio',
      'active',
      '1',
      expect.any(String),
    ]);
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('sends a test SMS that the Twilio fake receives, and shows "accepted"', async () => {
    const { page } = stack;
    await page.getByRole('link', { name: 'Twilio production' }).click();
    await page.getByRole('heading', { name: 'Twilio production', level: 1 }).waitFor();
    await page.getByRole('textbox', { name: 'To', exact: true }).fill('+14155550123');
    await page.getByRole('textbox', { name: 'Text' }).fill('Hello from the dashboard');
    await page.getByRole('button', { name: 'Send test' }).click();
    await textEventually(page.getByTestId('test-outcome'), (t) => t === 'accepted');
    expect(twilio.messages).toHaveLength(1);
    expect(twilio.messages[0]).toMatchObject({
      to: '+14155550123',
      from: '+14155550100',
      body: 'Hello from the dashboard',
    });
    expect(await page.getByTestId('test-result').textContent()).toContain(twilio.messages[0].sid);
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('connects FCM from the key file’s JSON, parsed in the browser; text that is not JSON is refused on its field', async () => {
    const { page } = stack;
    await navigate(page, 'Channels');
    await page.getByRole('button', { name: 'Connect a provider' }).click();
    const dialog = page.getByRole('dialog', { name: 'Connect a provider' });
    await dialog.getByRole('radio', { name: /Firebase/ }).check();
    await dialog.getByLabel(/^Name/).fill('Firebase app');
    const key = dialog.getByLabel('Service-account key (JSON)');
    await key.fill('not json');
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await page.waitForFunction(
      (el) => el?.getAttribute('aria-invalid') === 'true',
      await key.elementHandle(),
    );
    expect((await describedText(page, key)).join(' ')).toContain('This is not JSON');
    expect(await seriousA11yViolations(page)).toEqual([]);

    await key.fill(JSON.stringify(fcm.serviceAccount, null, 2));
    await dialog.getByRole('button', { name: 'Advanced' }).click();
    await dialog.getByLabel('API base URL').fill(fcm.url);
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await page.getByRole('heading', { name: 'Firebase app', level: 1 }).waitFor();
    expect(await page.getByTestId('provider-default').textContent()).toBe('Yes, for Push');
    expect(await page.content()).not.toContain(fcm.serviceAccount.private_key.slice(40, 80));

    await navigate(page, 'Channels');
    await page.getByRole('combobox', { name: 'Channel' }).click();
    await page.getByRole('option', { name: 'Push' }).click();
    const rows = page.getByTestId('providers').locator('tbody tr');
    // The previous page stays on screen until the filtered one arrives.
    await textEventually(
      page.getByTestId('providers'),
      (t) => t.includes('Firebase app') && !t.includes('Twilio production'),
    );
    expect(await rows.count()).toBe(1);
    expect(page.url()).toContain('channel=push');
  });

  it('disables and enables an account, then deletes it through a confirmation that says what goes', async () => {
    const { page, s } = stack;
    await page.getByRole('link', { name: 'Firebase app' }).click();
    await page.getByRole('heading', { name: 'Firebase app', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Disable' }).click();
    await textEventually(page.getByTestId('provider-status'), (t) => t === 'disabled');
    await dismissNotifications(page);
    expect(await page.getByRole('button', { name: 'Send test' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Enable' }).click();
    await textEventually(page.getByTestId('provider-status'), (t) => t === 'active');
    await dismissNotifications(page);

    await page.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete provider' });
    expect(await confirm.textContent()).toContain('its stored credentials are deleted');
    expect(await confirm.textContent()).toContain('It is the default for Push');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await confirm.getByRole('button', { name: 'Delete provider' }).click();
    await page.getByRole('heading', { name: 'Channels', level: 1 }).waitFor();
    const list = await s.http.get(BASE).expect(200);
    expect(list.body.data.map((p: { name: string }) => p.name)).toEqual(['Twilio production']);
  });

  it('edits name, throughput and sender: a 422 lands on its field, and the test SMS goes from the new sender with the kept credentials', async () => {
    const { page, s } = stack;
    await navigate(page, 'Channels');
    await page.getByRole('link', { name: 'Twilio production' }).click();
    await page.getByRole('heading', { name: 'Twilio production', level: 1 }).waitFor();
    const form = page.getByTestId('provider-edit');
    const from = form.getByLabel('From', { exact: true });
    expect(await form.getByLabel(/^Name/).inputValue()).toBe('Twilio production');
    expect(await from.inputValue()).toBe('+14155550100');
    expect(await form.getByLabel('API base URL').inputValue()).toBe(twilio.baseUrl);
    expect((await describedText(page, from)).join(' ')).toContain('Active numbers');
    // Write-only: the credential inputs start empty.
    expect(await form.getByLabel('Account SID').inputValue()).toBe('');
    expect(await form.getByLabel('Auth Token').inputValue()).toBe('');
    expect(await form.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    expect(await seriousA11yViolations(page)).toEqual([]);

    // Both a From and a Messaging Service SID: the API names settings.from.
    await form.getByLabel('Messaging Service SID').fill(`MG${'ab'.repeat(16)}`);
    await form.getByRole('button', { name: 'Save' }).click();
    await fieldSays(
      page,
      from,
      'Give either settings.from or settings.messagingServiceSid, not both',
    );
    expect(await seriousA11yViolations(page)).toEqual([]);
    const unchanged = await s.http.get(BASE).expect(200);
    expect(unchanged.body.data[0].settings).toEqual({
      from: '+14155550100',
      apiBaseUrl: twilio.baseUrl,
    });

    await form.getByLabel('Messaging Service SID').fill('');
    await from.fill('+14155550199');
    await form.getByLabel(/^Name/).fill('Twilio main');
    await form.getByLabel('Messages a second at most').fill('5');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Twilio main', level: 1 }).waitFor();
    await page.getByText('Provider saved').waitFor();
    await dismissNotifications(page);
    const id = page.url().split('/').pop() as string;
    const saved = await s.http.get(`${BASE}/${id}`).expect(200);
    expect(saved.body.data).toMatchObject({
      name: 'Twilio main',
      maxPerSecond: 5,
      settings: { from: '+14155550199', apiBaseUrl: twilio.baseUrl },
      status: 'active',
    });
    expect(await from.inputValue()).toBe('+14155550199');
    expect(await form.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);

    // The credentials left empty are the stored ones: Twilio's basic auth passes.
    await page.getByRole('textbox', { name: 'To', exact: true }).fill('+14155550124');
    await page.getByRole('textbox', { name: 'Text' }).fill('From the new sender');
    await page.getByRole('button', { name: 'Send test' }).click();
    await textEventually(page.getByTestId('test-outcome'), (t) => t === 'accepted');
    expect(twilio.messages.at(-1)).toMatchObject({
      to: '+14155550124',
      from: '+14155550199',
      body: 'From the new sender',
    });
  });

  it('replaces the credentials only when filled in, together: one alone is refused, a wrong SID gets the API’s 422, a wrong token is then refused by Twilio', async () => {
    const { page } = stack;
    const form = page.getByTestId('provider-edit');
    const sid = form.getByLabel('Account SID');
    const token = form.getByLabel('Auth Token');
    await token.fill('a-wrong-token');
    await form.getByRole('button', { name: 'Save' }).click();
    await fieldSays(page, sid, 'Give this too: the credentials are replaced together');

    await sid.fill('AC123');
    await form.getByRole('button', { name: 'Save' }).click();
    await fieldSays(page, sid, 'accountSid must be AC followed by 32 hex digits');
    expect(await seriousA11yViolations(page)).toEqual([]);

    // A complete set, with a token Twilio does not know: stored, and Twilio refuses it.
    await sid.fill(twilio.accountSid);
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Provider saved, credentials replaced').waitFor();
    await dismissNotifications(page);
    expect(await sid.inputValue()).toBe('');
    expect(await token.inputValue()).toBe('');
    const sent = twilio.messages.length;
    await page.getByRole('button', { name: 'Send test' }).click();
    await textEventually(page.getByTestId('test-outcome'), (t) => t === 'unauthorized');
    expect(twilio.messages).toHaveLength(sent);

    await sid.fill(twilio.accountSid);
    await token.fill(twilio.authToken);
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Provider saved, credentials replaced').waitFor();
    await dismissNotifications(page);
    await page.getByRole('button', { name: 'Send test' }).click();
    await textEventually(page.getByTestId('test-outcome'), (t) => t === 'accepted');
    expect(twilio.messages).toHaveLength(sent + 1);
    const html = await page.content();
    expect(html).not.toContain(twilio.authToken);
    expect(html).not.toContain(twilio.accountSid);
  });

  it('makes a second account the SMS default; the first is no longer', async () => {
    const { page, s } = stack;
    const second = await s.http
      .post(BASE, {
        channel: 'sms',
        provider: 'twilio',
        name: 'Twilio backup',
        credentials: { accountSid: twilio.accountSid, authToken: twilio.authToken },
        settings: { from: '+14155550177', apiBaseUrl: twilio.baseUrl },
      })
      .expect(201);
    expect(second.body.data.isDefault).toBe(false);
    await navigate(page, 'Channels');
    await page.getByRole('link', { name: 'Twilio backup' }).click();
    await page.getByRole('heading', { name: 'Twilio backup', level: 1 }).waitFor();
    expect(await page.getByTestId('provider-default').textContent()).toBe('No');
    await page.getByRole('button', { name: 'Make default' }).click();
    await textEventually(page.getByTestId('provider-default'), (t) => t === 'Yes, for SMS');
    await page.getByRole('button', { name: 'Make default' }).waitFor({ state: 'detached' });
    const list = await s.http.get(`${BASE}?channel=sms`).expect(200);
    const defaults = Object.fromEntries(
      list.body.data.map((p: { name: string; isDefault: boolean }) => [p.name, p.isDefault]),
    );
    expect(defaults).toEqual({ 'Twilio main': false, 'Twilio backup': true });
  });

  /** Opens "Connect a provider" on `label`, named `name`; returns the dialog. */
  async function connectDialog(page: Page, label: string, name: string): Promise<Locator> {
    await navigate(page, 'Channels');
    await page.getByRole('button', { name: 'Connect a provider' }).click();
    const dialog = page.getByRole('dialog', { name: 'Connect a provider' });
    await dialog.getByRole('radio', { name: label }).check();
    await dialog.getByLabel(/^Name/).fill(name);
    return dialog;
  }

  it('connects a Telegram bot: the platform sets its webhook with Telegram, and no URL is asked to be pasted', async () => {
    const { page } = stack;
    const dialog = await connectDialog(page, 'Telegram bot (Telegram)', 'Support bot');
    expect(await dialog.getByTestId('provider-note').textContent()).toContain('setWebhook');
    await dialog.getByLabel('Bot token').fill(telegram.botToken);
    await dialog.getByLabel(/^Bot username/).fill(telegram.botUsername);
    await dialog.getByRole('button', { name: 'Advanced' }).click();
    await dialog.getByLabel('API base URL').fill(telegram.baseUrl);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await page.getByRole('heading', { name: 'Support bot', level: 1 }).waitFor();
    expect(await page.getByTestId('provider-status').textContent()).toBe('active');
    expect(await page.getByTestId('provider-default').textContent()).toBe('Yes, for Telegram');
    const id = page.url().split('/').pop() as string;
    expect(telegram.webhook?.url).toMatch(new RegExp(`/channels/callbacks/${id}$`));
    expect(telegram.webhook?.secretToken).toBeTruthy();
    expect(await page.getByTestId('callback-url').count()).toBe(0);
    expect(await page.content()).not.toContain(telegram.botToken);
  });

  it('connects a WhatsApp number: listed active beside the bot, its page shows the callback URL that Meta’s check passes', async () => {
    const { page } = stack;
    const dialog = await connectDialog(page, 'WhatsApp Cloud API (WhatsApp)', 'WhatsApp main');
    await dialog.getByLabel('Access token').fill(whatsapp.accessToken);
    await dialog.getByLabel('App secret').fill(whatsapp.appSecret);
    await dialog.getByLabel(/^Phone number ID/).fill(whatsapp.phoneNumberId);
    await dialog.getByLabel('WhatsApp Business Account ID').fill(whatsapp.businessAccountId);
    await dialog.getByLabel('Verify token').fill('chosen-verify-token');
    await dialog.getByRole('button', { name: 'Advanced' }).click();
    await dialog.getByLabel('API base URL').fill(whatsapp.baseUrl);
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await page.getByRole('heading', { name: 'WhatsApp main', level: 1 }).waitFor();
    const id = page.url().split('/').pop() as string;
    const url = `${new URL(page.url()).origin}/channels/callbacks/${id}`;
    expect(await page.getByTestId('callback-url').textContent()).toBe(url);
    await page.getByRole('button', { name: 'Copy the callback URL' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
    expect(await seriousA11yViolations(page)).toEqual([]);
    const html = await page.content();
    expect(html).not.toContain(whatsapp.accessToken);
    expect(html).not.toContain(whatsapp.appSecret);
    expect(await whatsapp.verifyCallback('chosen-verify-token', url)).toMatchObject({
      verified: true,
    });

    await navigate(page, 'Channels');
    const cellsOf = (name: string) =>
      page.getByTestId('providers').getByRole('row').filter({ hasText: name }).getByRole('cell');
    expect(await cellsOf('WhatsApp main').allTextContents()).toEqual([
      'WhatsApp maindefault',
      'WhatsApp',
      'WhatsApp Cloud API',
      'active',
      '80',
      expect.any(String),
    ]);
    expect(await cellsOf('Support bot').allTextContents()).toEqual([
      'Support botdefault',
      'Telegram',
      'Telegram bot',
      'active',
      '30',
      expect.any(String),
    ]);
  });

  it('connects an HTTP endpoint for iMessage: the generated secret is shown once, then only the callback URL', async () => {
    const { page, s } = stack;
    const dialog = await connectDialog(page, 'HTTP endpoint (any channel)', 'Own gateway');
    await dialog.getByLabel(/^Channel/).selectOption('imessage');
    await dialog.getByLabel(/^Endpoint URL/).fill('http://127.0.0.1:9/messages');
    expect(await dialog.getByRole('button', { name: 'Advanced' }).count()).toBe(0);
    await dialog.getByRole('button', { name: 'Connect' }).click();
    const shown = page.getByRole('dialog', { name: 'Signing secret' });
    expect(await shown.getByTestId('shown-once').textContent()).toContain('Shown once');
    const secret = (await shown.getByTestId('provider-secret').textContent())!.trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await shown.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('heading', { name: 'Own gateway', level: 1 }).waitFor();
    expect(await page.getByTestId('provider-default').textContent()).toBe('Yes, for iMessage');
    await page.getByTestId('callback-url').waitFor();
    expect(await page.content()).not.toContain(secret);
    const id = page.url().split('/').pop() as string;
    const stored = await s.http.get(`${BASE}/${id}`).expect(200);
    expect(stored.body.data).toMatchObject({ channel: 'imessage', provider: 'http' });
    expect(stored.body.data.secret).toBeUndefined();
  });
});
