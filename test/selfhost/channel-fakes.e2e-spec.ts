// The provider fakes `npm start` runs in development (scripts/channel-fakes.js) and the mail
// catcher's Channels pages (scripts/catcher-channels.js), without the platform: credentials made
// once and kept in the data directory across restarts; each message's status callbacks posted and
// signed as the provider signs them (Twilio, WhatsApp, Blooio, the http provider), checked with the
// adapters' own verifiers; a Telegram deep link opened from the page; what the fakes took listed,
// shown and forgotten. test/selfhost/readme-walkthrough.e2e-spec.ts runs them under `npm start`
// with the platform.
import { BlooioAdapter } from '@app/domain/channels/providers/blooio.adapter';
import { HttpProviderAdapter } from '@app/domain/channels/providers/http.adapter';
import { standardWebhookHeaders } from '@app/domain/channels/providers/standard-webhooks';
import {
  TelegramBotAdapter,
  telegramWebhookSecret,
} from '@app/domain/channels/providers/telegram-bot.adapter';
import { WhatsappCloudAdapter } from '@app/domain/channels/providers/whatsapp-cloud.adapter';
import type { ProviderAccount, ProviderCallback } from '@app/domain/channels/provider-adapter';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { twilioSignature } from '../support/providers/twilio-fake';
import { waitFor } from '../support/wait-for';
import { ensureBuilt, freePorts } from './support';
import { asOrgId } from '@app/domain';

const NAMES = ['twilio', 'fcm', 'apns', 'whatsapp', 'telegram', 'blooio', 'http'] as const;
type Name = (typeof NAMES)[number];

interface Account {
  channel: string;
  name: string;
  provider: string;
  url: string;
  credentialsFile: string;
  credentials: Record<string, unknown>;
  settings: Record<string, unknown>;
}
interface Fakes {
  accounts: Record<Name, Account>;
  messages(): Record<string, unknown>[];
  callbackUrls(): Record<string, string | null>;
  tlsCa: string;
  close(): Promise<void>;
}
interface Catcher {
  smtpUrl: string | null;
  webUrl: string;
  close(): Promise<void>;
}
/* eslint-disable @typescript-eslint/no-require-imports */
const { startChannelFakes, addProviderCommand } = require('../../scripts/channel-fakes.js') as {
  startChannelFakes(o: { dataDir: string; ports: Record<string, number> }): Promise<Fakes>;
  addProviderCommand(a: Account, cwd?: string): string;
};
const { channelPages } = require('../../scripts/catcher-channels.js') as {
  channelPages(f: Fakes): unknown;
};
const { startMailCatcher } = require('../../scripts/mail-catcher.js') as {
  startMailCatcher(o: {
    smtpPort: number | null;
    httpPort: number;
    channels: unknown;
  }): Promise<Catcher>;
};
/* eslint-enable @typescript-eslint/no-require-imports */

describe('the development provider fakes and their catcher pages', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mp-fakes-'));
  let ports: Record<string, number>;
  let fakes: Fakes;
  let catcher: Catcher;

  beforeAll(async () => {
    ensureBuilt('channel-fakes');
    const free = await freePorts(NAMES.length);
    ports = Object.fromEntries(NAMES.map((name, i) => [name, free[i]]));
    fakes = await startChannelFakes({ dataDir, ports });
    catcher = await startMailCatcher({ smtpPort: 0, httpPort: 0, channels: channelPages(fakes) });
  }, 120_000);

  afterAll(async () => {
    await catcher?.close();
    await fakes?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const get = async (path: string) => {
    const res = await fetch(`${catcher.webUrl}${path}`);
    expect(res.status).toBe(200);
    return res;
  };

  it('keeps the credentials in the data directory, the same after a restart', async () => {
    const { twilio, fcm, apns, whatsapp, telegram, blooio, http } = fakes.accounts;
    expect(twilio.url).toBe(`http://127.0.0.1:${ports.twilio}`);
    expect(apns.url).toBe(`https://127.0.0.1:${ports.apns}`);
    expect(whatsapp.settings.apiBaseUrl).toBe(`http://127.0.0.1:${ports.whatsapp}`);
    expect(telegram.settings.apiBaseUrl).toBe(`http://127.0.0.1:${ports.telegram}`);
    expect(blooio.settings.apiBaseUrl).toBe(`http://127.0.0.1:${ports.blooio}/v2/api`);
    expect(http.settings.url).toBe(`http://127.0.0.1:${ports.http}/messages`);
    // The Blooio fake's signing secret is known: the account carries it from the start.
    expect(blooio.credentials.signingSecret).toMatch(/^whsec_/);
    expect(fakes.tlsCa).toMatch(/^-----BEGIN CERTIFICATE-----/);
    const key = fcm.credentials.serviceAccount as Record<string, string>;
    expect(key.token_uri).toBe(`http://127.0.0.1:${ports.fcm}/token`);
    // Each file is what `mp-admin add-provider --credentials-file` takes (fcm: the key itself).
    expect(JSON.parse(readFileSync(twilio.credentialsFile, 'utf8'))).toEqual(twilio.credentials);
    expect(JSON.parse(readFileSync(fcm.credentialsFile, 'utf8'))).toEqual(key);
    for (const a of [twilio, apns, whatsapp, telegram, blooio, http]) {
      expect(JSON.parse(readFileSync(a.credentialsFile, 'utf8'))).toEqual(a.credentials);
    }
    for (const a of Object.values(fakes.accounts)) {
      expect(statSync(a.credentialsFile).mode & 0o077).toBe(0);
    }
    expect(addProviderCommand(twilio, dataDir)).toBe(
      'WEBHOOK_ALLOW_PRIVATE_TARGETS=true npx mp-admin add-provider --org $ORG ' +
        `--channel sms --provider twilio --name 'Twilio fake' ` +
        `--credentials-file channel-fakes/twilio.json ` +
        `--settings '{"from":"+15005550006","apiBaseUrl":"http://127.0.0.1:${ports.twilio}"}'`,
    );

    await catcher.close();
    await fakes.close();
    const before = fakes.accounts;
    fakes = await startChannelFakes({ dataDir, ports });
    catcher = await startMailCatcher({ smtpPort: 0, httpPort: 0, channels: channelPages(fakes) });
    for (const name of NAMES) {
      expect(fakes.accounts[name].credentials).toEqual(before[name].credentials);
    }
  });

  it("posts a Twilio message's status callbacks, signed, and lists what the fakes took", async () => {
    const callbacks: { url: string; signature: string; params: Record<string, string> }[] = [];
    const [port] = await freePorts(1);
    const platform: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        callbacks.push({
          url: `http://127.0.0.1:${port}${req.url}`,
          signature: String(req.headers['x-twilio-signature']),
          params: Object.fromEntries(new URLSearchParams(body)),
        });
        res.writeHead(200, { 'content-type': 'text/xml' }).end('<Response/>');
      });
    });
    await new Promise<void>((done) => platform.listen(port, '127.0.0.1', done));
    try {
      const { url, credentials } = fakes.accounts.twilio;
      const auth = `${credentials.accountSid}:${credentials.authToken}`;
      const res = await fetch(
        `${url}/2010-04-01/Accounts/${credentials.accountSid}/Messages.json`,
        {
          method: 'POST',
          headers: {
            authorization: `Basic ${Buffer.from(auth).toString('base64')}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: new URLSearchParams({
            To: '+14155550123',
            From: '+15005550006',
            Body: 'Hello <there>',
            StatusCallback: `http://127.0.0.1:${port}/channels/callbacks/p1`,
          }),
        },
      );
      expect(res.status).toBe(201);
      await waitFor(() => callbacks.length === 2, { what: 'two status callbacks' });
      expect(callbacks.map((c) => c.params.MessageStatus)).toEqual(['sent', 'delivered']);
      for (const c of callbacks) {
        expect(c.signature).toBe(twilioSignature(credentials.authToken as string, c.url, c.params));
      }
      const listed = await waitFor(async () => {
        const all = (await (await get('/channels/messages')).json()) as Record<string, unknown>[];
        return all[0]?.callback === 'delivered: HTTP 200' && all;
      });
      expect(listed).toEqual([
        expect.objectContaining({
          channel: 'sms',
          provider: 'twilio',
          from: '+15005550006',
          to: '+14155550123',
          text: 'Hello <there>',
          status: 'delivered',
        }),
      ]);
      const page = await (await get('/channels')).text();
      expect(page).toContain('Hello &lt;there&gt;');
      expect(page).toContain('<a href="/">Mail</a>');
      expect(await (await get('/')).text()).toContain('<a href="/channels">Channels</a>');

      const accounts = (await (await get('/channels/accounts')).json()) as Record<
        string,
        { command: string }
      >;
      expect(Object.keys(accounts)).toEqual([...NAMES]);
      expect(accounts.fcm.command).toContain('--provider fcm');
      const key = (await (await get('/channels/accounts/fcm/credentials')).json()) as {
        type: string;
      };
      expect(key.type).toBe('service_account');
      expect(await (await get('/channels/accounts/apns/key.p8')).text()).toMatch(
        /^-----BEGIN PRIVATE KEY-----/,
      );
      expect(await (await get('/channels/connect')).text()).toContain(
        String(credentials.accountSid),
      );

      const cleared = await fetch(`${catcher.webUrl}/channels/messages`, { method: 'DELETE' });
      expect(cleared.status).toBe(204);
      expect(await (await get('/channels/messages')).json()).toEqual([]);
    } finally {
      await new Promise((done) => platform.close(done));
    }
  });

  /** A stand-in for the platform's callback endpoint: records every request, answers 200. */
  async function platformStub() {
    const got: (ProviderCallback & { path: string; query: URLSearchParams })[] = [];
    const [port] = await freePorts(1);
    const server: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
        const headers: Record<string, string | undefined> = {};
        for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v[0] : v;
        got.push({
          url: url.href,
          path: url.pathname,
          query: url.searchParams,
          method: req.method ?? '',
          headers,
          rawBody: Buffer.concat(chunks),
        });
        // Meta's verification GET: the platform echoes the challenge when the token is the account's.
        const challenge = url.searchParams.get('hub.challenge');
        const verified =
          url.pathname === '/wa' &&
          url.searchParams.get('hub.verify_token') === 'mp-fake-verify-token';
        if (req.method === 'GET')
          res.writeHead(verified ? 200 : 403).end(verified ? challenge : '');
        else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
    return {
      url: (path: string) => `http://127.0.0.1:${port}${path}`,
      posts: (path: string) => got.filter((c) => c.method === 'POST' && c.path === path),
      close: () => new Promise((done) => server.close(done)),
    };
  }

  /** What the platform would hold for a fake's account. */
  const held = (name: Name, id = `acc-${name}`): ProviderAccount => {
    const a = fakes.accounts[name];
    return {
      id,
      organizationId: asOrgId('org-1'),
      channel: a.channel as ProviderAccount['channel'],
      provider: a.provider,
      settings: a.settings,
      credentials: a.credentials,
    };
  };
  const form = (path: string, fields: Record<string, string>) =>
    fetch(`${catcher.webUrl}${path}`, { method: 'POST', body: new URLSearchParams(fields) });
  const listed = (provider: string) =>
    waitFor(async () => {
      const all = (await (await get('/channels/messages')).json()) as Record<string, unknown>[];
      const one = all.find((m) => m.provider === provider);
      return typeof one?.callback === 'string' && one.callback.includes('delivered: HTTP') && one;
    });
  const noHttp = {} as never;

  it('posts the WhatsApp, Blooio and http statuses, signed, once their callback URLs are set', async () => {
    const platform = await platformStub();
    try {
      // WhatsApp: the callback URL is checked with Meta's verification GET first.
      const refused = await form('/channels/accounts/whatsapp/callback-url', {
        url: platform.url('/nowhere'),
      });
      expect(refused.status).toBe(422);
      expect(await refused.text()).toContain('did not answer the challenge (HTTP 403)');
      expect(fakes.callbackUrls().whatsapp).toBeNull();
      const wrong = await form('/channels/accounts/blooio/callback-url', {
        url: 'ftp://example.com',
      });
      expect(wrong.status).toBe(422);
      expect(
        (await form('/channels/accounts/whatsapp/callback-url', { url: platform.url('/wa') }))
          .status,
      ).toBe(200);
      expect(
        (await form('/channels/accounts/blooio/callback-url', { url: platform.url('/blooio') }))
          .status,
      ).toBe(200);
      expect(fakes.callbackUrls()).toMatchObject({
        whatsapp: platform.url('/wa'),
        blooio: platform.url('/blooio'),
      });

      const wa = fakes.accounts.whatsapp;
      const sent = await fetch(`${wa.url}/v21.0/${String(wa.settings.phoneNumberId)}/messages`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${String(wa.credentials.accessToken)}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          messaging_product: 'whatsapp',
          to: '+14155550123',
          type: 'text',
          text: { body: 'Hi <WhatsApp> ä' },
        }),
      });
      // Free text goes through: every number's service window is open in development.
      expect(sent.status).toBe(200);

      const bl = fakes.accounts.blooio;
      const queued = await fetch(`${bl.url}/chats/${encodeURIComponent('+14155550124')}/messages`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${String(bl.credentials.apiKey)}`,
          'content-type': 'application/json',
          'x-from-number': String(bl.settings.fromNumber),
        },
        body: JSON.stringify({ text: 'Hi <iMessage>' }),
      });
      expect(queued.status).toBe(202);

      const ht = fakes.accounts.http;
      const body = JSON.stringify({
        id: 'job_1',
        channel: 'sms',
        to: '+14155550125',
        content: { text: 'Hi <http>' },
        statusCallbackUrl: platform.url('/http'),
      });
      const taken = await fetch(ht.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...standardWebhookHeaders(String(ht.credentials.secret), body, { id: 'job_1' }),
        },
        body,
      });
      expect(taken.status).toBe(202);
      const receiverId = ((await taken.json()) as { id: string }).id;

      await waitFor(
        () =>
          platform.posts('/wa').length === 2 &&
          platform.posts('/blooio').length === 2 &&
          platform.posts('/http').length === 1,
        { what: 'the status callbacks' },
      );
      const whatsapp = new WhatsappCloudAdapter(noHttp);
      for (const c of platform.posts('/wa')) {
        expect(whatsapp.verifySignature(held('whatsapp'), c)).toBe(true);
        expect(
          whatsapp.verifySignature(
            { ...held('whatsapp'), credentials: { appSecret: 'f'.repeat(32) } },
            c,
          ),
        ).toBe(false);
      }
      expect(
        platform.posts('/wa').flatMap((c) => whatsapp.parseStatus(c).map((u) => u.status)),
      ).toEqual(['sent', 'delivered']);
      const blooio = new BlooioAdapter(noHttp);
      for (const c of platform.posts('/blooio')) {
        expect(blooio.verifySignature(held('blooio'), c)).toBe(true);
      }
      expect(
        platform.posts('/blooio').flatMap((c) => blooio.parseStatus(c).map((u) => u.status)),
      ).toEqual(['sent', 'delivered']);
      const http = new HttpProviderAdapter('sms', noHttp);
      const [status] = platform.posts('/http');
      expect(http.verifySignature(held('http'), status)).toBe(true);
      expect(http.parseStatus(status)).toEqual([
        expect.objectContaining({ providerMessageId: receiverId, status: 'delivered' }),
      ]);

      expect(await listed('whatsapp-cloud')).toEqual(
        expect.objectContaining({
          channel: 'whatsapp',
          from: '+15550783881',
          to: '+14155550123',
          text: 'Hi <WhatsApp> ä',
          status: 'delivered',
          callback: 'delivered: HTTP 200',
        }),
      );
      expect(await listed('blooio')).toEqual(
        expect.objectContaining({
          channel: 'imessage',
          from: bl.settings.fromNumber,
          to: '+14155550124',
          text: 'Hi <iMessage>',
          status: 'delivered',
          callback: 'message.delivered: HTTP 200',
        }),
      );
      expect(await listed('http')).toEqual(
        expect.objectContaining({
          id: receiverId,
          channel: 'sms',
          to: '+14155550125',
          text: 'Hi <http>',
          status: 'delivered',
          callback: 'delivered: HTTP 200',
        }),
      );
      const page = await (await get('/channels')).text();
      for (const text of ['Hi &lt;WhatsApp&gt;', 'Hi &lt;iMessage&gt;', 'Hi &lt;http&gt;']) {
        expect(page).toContain(text);
      }
      expect(page).toContain('<h1>Channels</h1>');
      const connect = await (await get('/channels/connect')).text();
      expect(connect).toContain(platform.url('/wa'));
      expect(connect).toContain('--provider whatsapp-cloud');

      // The callback URLs are kept across a restart, as the accounts are.
      await catcher.close();
      await fakes.close();
      fakes = await startChannelFakes({ dataDir, ports });
      catcher = await startMailCatcher({ smtpPort: 0, httpPort: 0, channels: channelPages(fakes) });
      expect(fakes.callbackUrls()).toMatchObject({
        whatsapp: platform.url('/wa'),
        blooio: platform.url('/blooio'),
      });
      expect(statSync(join(dataDir, 'channel-fakes/webhooks.json')).mode & 0o077).toBe(0);
    } finally {
      await platform.close();
    }
  });

  it("opens a Telegram deep link from the page and lists the bot's messages", async () => {
    const platform = await platformStub();
    try {
      const tg = fakes.accounts.telegram;
      const token = String(tg.credentials.botToken);
      const account = held('telegram');
      // What the platform does when the account is connected.
      const set = await fetch(`${tg.url}/bot${token}/setWebhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          url: platform.url('/tg'),
          secret_token: telegramWebhookSecret(token, account.id),
        }),
      });
      expect(set.status).toBe(200);
      const opened = await form('/channels/telegram/start', {
        start: 'https://t.me/mp_fake_bot?start=c_abc-1',
      });
      expect(opened.status).toBe(200);
      expect(await opened.text()).toMatch(/posted to the webhook: HTTP 200/);
      const [update] = platform.posts('/tg');
      const telegram = new TelegramBotAdapter(noHttp);
      expect(telegram.verifySignature(account, update)).toBe(true);
      expect(telegram.verifySignature({ ...account, id: 'another' }, update)).toBe(false);
      const message = (
        JSON.parse(update.rawBody.toString()) as {
          message: { text: string; chat: { id: number } };
        }
      ).message;
      expect(message.text).toBe('/start c_abc-1');
      expect((await form('/channels/telegram/start', { start: 'bad token!' })).status).toBe(422);

      const reply = await fetch(`${tg.url}/bot${token}/sendMessage`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ chat_id: message.chat.id, text: 'Welcome <in>' }),
      });
      expect(reply.status).toBe(200);
      const all = (await (await get('/channels/messages')).json()) as Record<string, unknown>[];
      expect(all.find((m) => m.channel === 'telegram')).toEqual(
        expect.objectContaining({
          provider: 'telegram-bot',
          from: '@mp_fake_bot',
          to: String(message.chat.id),
          text: 'Welcome <in>',
          status: 'delivered',
        }),
      );
      expect(await (await get('/channels')).text()).toContain('Welcome &lt;in&gt;');
    } finally {
      await platform.close();
    }
  });

  it('serves only the pages when outbound mail goes elsewhere', async () => {
    const pages = await startMailCatcher({
      smtpPort: null,
      httpPort: 0,
      channels: channelPages(fakes),
    });
    try {
      expect(pages.smtpUrl).toBeNull();
      const res = await fetch(pages.webUrl, { redirect: 'manual' });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/channels');
    } finally {
      await pages.close();
    }
  });
});
