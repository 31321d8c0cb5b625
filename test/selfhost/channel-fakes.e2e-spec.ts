// The provider fakes `npm start` runs in development (scripts/channel-fakes.js) and the mail
// catcher's "SMS and push" pages (scripts/catcher-channels.js), without the platform: credentials
// made once and kept in the data directory across restarts, a Twilio message's status callbacks
// posted and signed as Twilio signs them, what the fakes took listed, shown and forgotten.
// test/selfhost/readme-walkthrough.e2e-spec.ts runs them under `npm start` with the platform.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { twilioSignature } from '../support/providers/twilio-fake';
import { waitFor } from '../support/wait-for';
import { ensureBuilt, freePorts } from './support';

interface Account {
  channel: string;
  provider: string;
  url: string;
  credentialsFile: string;
  credentials: Record<string, unknown>;
  settings: Record<string, unknown>;
}
interface Fakes {
  accounts: Record<'twilio' | 'fcm' | 'apns', Account>;
  messages(): Record<string, unknown>[];
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
    const [twilio, fcm, apns] = await freePorts(3);
    ports = { twilio, fcm, apns };
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
    const { twilio, fcm, apns } = fakes.accounts;
    expect(twilio.url).toBe(`http://127.0.0.1:${ports.twilio}`);
    expect(apns.url).toBe(`https://127.0.0.1:${ports.apns}`);
    expect(fakes.tlsCa).toMatch(/^-----BEGIN CERTIFICATE-----/);
    const key = fcm.credentials.serviceAccount as Record<string, string>;
    expect(key.token_uri).toBe(`http://127.0.0.1:${ports.fcm}/token`);
    // Each file is what `mp-admin add-provider --credentials-file` takes (fcm: the key itself).
    expect(JSON.parse(readFileSync(twilio.credentialsFile, 'utf8'))).toEqual(twilio.credentials);
    expect(JSON.parse(readFileSync(fcm.credentialsFile, 'utf8'))).toEqual(key);
    expect(JSON.parse(readFileSync(apns.credentialsFile, 'utf8'))).toEqual(apns.credentials);
    expect(statSync(twilio.credentialsFile).mode & 0o077).toBe(0);
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
    for (const name of ['twilio', 'fcm', 'apns'] as const) {
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
      expect(await (await get('/')).text()).toContain('<a href="/channels">SMS and push</a>');

      const accounts = (await (await get('/channels/accounts')).json()) as Record<
        string,
        { command: string }
      >;
      expect(Object.keys(accounts)).toEqual(['twilio', 'fcm', 'apns']);
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
