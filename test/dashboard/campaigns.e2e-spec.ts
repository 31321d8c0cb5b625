// The campaign composer and detail page across channels, against the loopback Twilio and WhatsApp
// fakes and the in-process worker: a list whose contacts carry email, SMS and WhatsApp records
// (one reachable on none), a three-channel campaign composed in the browser (channels added,
// reordered by drag and by the buttons), the expected reach per channel following each change of
// the order, the SMS preview counting segments in GSM-7 and UCS-2, the WhatsApp template's
// parameters previewed, the draft sent, and the counts by channel on the detail page once the
// worker has fanned it out (each fake received its messages).
import { TwilioFake } from '../support/providers/twilio-fake';
import { WhatsappFake } from '../support/providers/whatsapp-fake';
import { waitFor } from '../support/wait-for';
import {
  choose,
  DashboardStack,
  navigate,
  seriousA11yViolations,
  signIn,
  startDashboardStack,
  textEventually,
} from './support/browser';
import type { Locator, Page } from 'playwright-core';

const SENDER = '+14155550100';

/** The reach panel's count of each channel, in the panel's order, once it has settled. */
async function reachOf(page: Page): Promise<Record<string, number>> {
  const panel = page.getByTestId('campaign-reach');
  await waitFor(async () => (await panel.getAttribute('aria-busy')) === 'false', {
    what: 'the reach to settle',
    timeoutMs: 15_000,
    everyMs: 100,
  });
  const out: Record<string, number> = {};
  for (const row of await panel.locator('[data-testid^="reach-"][data-count]').all()) {
    const id = (await row.getAttribute('data-testid'))!.replace('reach-', '');
    out[id] = Number(await row.getAttribute('data-count'));
  }
  out.unreachable = Number(await panel.getByTestId('reach-unreachable').textContent());
  return out;
}

/** Waits until the reach panel shows `expected` (channels in that order, then unreachable). */
async function reachBecomes(page: Page, expected: Record<string, number>): Promise<void> {
  let last: Record<string, number> = {};
  await waitFor(
    async () => {
      last = await reachOf(page);
      return JSON.stringify(last) === JSON.stringify(expected);
    },
    { what: `reach ${JSON.stringify(expected)}`, timeoutMs: 15_000, everyMs: 200 },
  ).catch((err: Error) => {
    throw new Error(`${err.message}; last was ${JSON.stringify(last)}`);
  });
}

async function channelOrder(dialog: Locator): Promise<string[]> {
  const items = dialog.getByTestId('channel-order').getByRole('listitem');
  return Promise.all(
    (await items.all()).map(async (i) => (await i.getAttribute('data-channel')) ?? ''),
  );
}

async function tableRows(page: Page, testId: string): Promise<string[][]> {
  const rows = await page.getByTestId(testId).locator('tbody tr').all();
  return Promise.all(rows.map((r) => r.locator('td').allTextContents()));
}

describe('dashboard campaigns across channels', () => {
  let stack: DashboardStack;
  let twilio: TwilioFake;
  let whatsapp: WhatsappFake;
  let listName: string;

  beforeAll(async () => {
    twilio = await TwilioFake.start();
    whatsapp = await WhatsappFake.start();
    whatsapp.addTemplate({ name: 'spring_sale', language: 'en_US', bodyParameters: 2 });
    stack = await startDashboardStack({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    const { http } = stack.s;
    await http
      .post('/api/v1/user/channel-providers', {
        channel: 'sms',
        provider: 'twilio',
        name: 'Twilio',
        credentials: { accountSid: twilio.accountSid, authToken: twilio.authToken },
        settings: { from: SENDER, apiBaseUrl: twilio.baseUrl },
      })
      .expect(201);
    await http
      .post('/api/v1/user/channel-providers', {
        channel: 'whatsapp',
        provider: 'whatsapp-cloud',
        name: 'WhatsApp',
        credentials: { accessToken: whatsapp.accessToken, appSecret: whatsapp.appSecret },
        settings: {
          phoneNumberId: whatsapp.phoneNumberId,
          verifyToken: 'verify-campaigns',
          apiBaseUrl: whatsapp.baseUrl,
        },
      })
      .expect(201);
    listName = `Spring customers ${Date.now()}`;
    const list = await http.post('/api/v1/user/contact-lists', { name: listName }).expect(201);
    const listIds = [list.body.data.id as string];
    const contacts = [
      // Email, SMS and WhatsApp.
      {
        firstName: 'Ada',
        emails: [{ email: 'ada@example.test' }],
        smsNumbers: [{ phoneNumber: '+14155550111' }],
        whatsappAccounts: [{ phoneNumber: '+14155550111' }],
      },
      // Email and WhatsApp.
      {
        firstName: 'Ben',
        emails: [{ email: 'ben@example.test' }],
        whatsappAccounts: [{ phoneNumber: '+14155550122' }],
      },
      // Email only.
      { firstName: 'Cy', emails: [{ email: 'cy@example.test' }] },
      // SMS only.
      { firstName: 'Di', smsNumbers: [{ phoneNumber: '+14155550144' }] },
      // An SMS number that opted out: reachable on none.
      { firstName: 'Ed', smsNumbers: [{ phoneNumber: '+14155550155', status: 'opted_out' }] },
    ];
    for (const c of contacts) {
      await http.post('/api/v1/user/contacts', { ...c, listIds }).expect(201);
    }
    await signIn(stack);
  });
  afterAll(async () => {
    await stack.close();
    await Promise.all([twilio.stop(), whatsapp.stop()]);
  });

  it('composes a three-channel campaign: order by drag and buttons, reach per channel, SMS segments, template parameters', async () => {
    const { page } = stack;
    await navigate(page, 'Campaigns');
    await page.getByRole('button', { name: 'New campaign' }).click();
    const dialog = page.getByRole('dialog', { name: 'New campaign' });
    await dialog.getByLabel('Name').fill('Spring sale');
    await choose(page, 'List', new RegExp(listName));
    // The list prefers email (its default): the order starts there.
    expect(await channelOrder(dialog)).toEqual(['email']);
    await reachBecomes(page, { email: 3, unreachable: 2 });

    for (const label of ['SMS', 'WhatsApp']) {
      await dialog.getByRole('button', { name: 'Add a channel' }).click();
      await page.getByRole('menuitem', { name: label }).click();
    }
    expect(await channelOrder(dialog)).toEqual(['email', 'sms', 'whatsapp']);
    await reachBecomes(page, { email: 3, sms: 1, whatsapp: 0, unreachable: 1 });

    // SMS dragged onto email: SMS first.
    await dialog.locator('[data-channel="sms"]').dragTo(dialog.locator('[data-channel="email"]'));
    expect(await channelOrder(dialog)).toEqual(['sms', 'email', 'whatsapp']);
    await reachBecomes(page, { sms: 2, email: 2, whatsapp: 0, unreachable: 1 });

    // WhatsApp moved to the top with its buttons (keyboard: focus and Enter).
    await dialog.getByRole('button', { name: 'Move WhatsApp up' }).click();
    await dialog.getByRole('button', { name: 'Move WhatsApp up' }).focus();
    await page.keyboard.press('Enter');
    expect(await channelOrder(dialog)).toEqual(['whatsapp', 'sms', 'email']);
    await reachBecomes(page, { whatsapp: 2, sms: 1, email: 1, unreachable: 1 });
    expect(await dialog.getByRole('button', { name: 'Move WhatsApp up' }).isDisabled()).toBe(true);

    // One tab per channel, in the order.
    expect(await dialog.getByRole('tab').allTextContents()).toEqual(['WhatsApp', 'SMS', 'Email']);

    await dialog.getByRole('tab', { name: 'WhatsApp' }).click();
    await dialog.getByLabel('Template name').fill('spring_sale');
    await dialog.getByLabel('Template language').fill('en_US');
    for (const value of ['Ada', '20%']) {
      await dialog.getByRole('button', { name: 'Add a parameter' }).click();
      await dialog
        .getByLabel(/^Parameter \{\{\d\}\}/)
        .last()
        .fill(value);
    }
    const template = dialog.getByTestId('whatsapp-template-preview');
    expect(await template.locator('tbody tr').allTextContents()).toEqual(['{{1}}Ada', '{{2}}20%']);

    await dialog.getByRole('tab', { name: 'SMS' }).click();
    const sms = dialog.getByLabel('SMS text');
    await sms.fill('Spring sale: 20% off today only. Reply STOP to opt out.');
    expect(await dialog.getByTestId('sms-encoding').textContent()).toBe('GSM-7');
    expect(await dialog.getByTestId('sms-segments').textContent()).toBe('1 segment');
    // The sun (and its emoji selector) is outside GSM-7: the whole text goes as UCS-2, 66 units
    // in one message of up to 70; 22 more split it into 2 segments.
    const ucs = 'Spring sale ☀️ 20% off today only! Reply STOP to opt out of texts.';
    await sms.fill(ucs);
    expect(await dialog.getByTestId('sms-encoding').textContent()).toBe('UCS-2');
    expect(await dialog.getByTestId('sms-segments').textContent()).toBe('1 segment');
    await sms.fill(`${ucs} Thanks, see you soon!`);
    expect(await dialog.getByTestId('sms-segments').textContent()).toBe('2 segments');
    await sms.fill('Spring sale: 20% off today only. Reply STOP to opt out.');
    expect(await seriousA11yViolations(page)).toEqual([]);

    // Email's fields are required while email is a channel: the tab with the error opens.
    await dialog.getByRole('button', { name: 'Create draft' }).click();
    await dialog.getByText('Write the message (text or HTML)').waitFor();
    expect(await dialog.getByRole('tab', { selected: true }).textContent()).toContain('Email');
    await dialog.getByLabel('From').fill('Shop <news@shop.example.test>');
    await dialog.getByLabel('Subject').fill('Spring sale');
    await dialog.getByLabel('Text', { exact: true }).fill('20% off today. {{unsubscribe_url}}');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Create draft' }).click();
    await page.getByRole('heading', { name: 'Spring sale', level: 1 }).waitFor();
    expect(await page.getByTestId('campaign-channels').textContent()).toContain(
      '1. WhatsApp2. SMS3. Email',
    );
  });

  it('sends it: the detail page counts recipients and messages by channel, and the unreachable', async () => {
    const { page } = stack;
    await page.getByRole('button', { name: 'Send campaign' }).click();
    await page
      .getByRole('dialog', { name: 'Send campaign' })
      .getByRole('button', { name: 'Send now' })
      .click();
    await textEventually(page.getByTestId('campaign-status'), (t) => t === 'sent', 30_000);
    expect(await page.getByTestId('campaign-recipients').textContent()).toBe('4');
    expect(await page.getByTestId('campaign-unreachable').textContent()).toBe('1');
    // Channel, recipients, pending, held, sent, failed.
    await waitFor(
      async () =>
        JSON.stringify(await tableRows(page, 'campaign-channel-table')) ===
        JSON.stringify([
          ['WhatsApp', '2', '0', '0', '2', '0'],
          ['SMS', '1', '0', '0', '1', '0'],
          ['Email', '1', '0', '0', '1', '0'],
        ]),
      { what: 'the counts by channel', timeoutMs: 15_000, everyMs: 200 },
    );
    const delivery = await tableRows(page, 'campaign-delivery-table');
    expect(delivery.map((r) => r[0])).toEqual(['WhatsApp', 'SMS', 'Email']);
    // Each channel's messages all carry a status: as many as its recipients.
    expect(delivery.map((r) => r.slice(1).reduce((a, n) => a + Number(n), 0))).toEqual([2, 1, 1]);
    expect(await seriousA11yViolations(page)).toEqual([]);

    expect(whatsapp.messages.map((m) => m.waId).sort()).toEqual(['14155550111', '14155550122']);
    expect(whatsapp.messages.map((m) => m.template)).toEqual([
      { name: 'spring_sale', language: 'en_US', parameters: ['Ada', '20%'] },
      { name: 'spring_sale', language: 'en_US', parameters: ['Ada', '20%'] },
    ]);
    expect(twilio.messages.map((m) => [m.from, m.to, m.body])).toEqual([
      [SENDER, '+14155550144', 'Spring sale: 20% off today only. Reply STOP to opt out.'],
    ]);
    await waitFor(() => stack.sink.messages.length >= 1, { what: 'the email', timeoutMs: 15_000 });
    expect(stack.sink.messages.map((m) => m.to)).toEqual([['cy@example.test']]);
  });
});
