// `npm run screenshots`: seeds realistic data into the run's throwaway database, then writes a
// 1280×800 screenshot of each dashboard page to docs/screenshots/. Not part of `npm test`.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { BOUNCE_DOMAIN } from '../sending-domains/support';
import { startDnsServer, TestDnsServer } from '../support/dns-server';
import { DashboardStack, signIn, startDashboardStack } from './support/browser';
import { seedShowcase, Showcase } from './support/showcase';

const OUT = join(__dirname, '../../docs/screenshots');

describe('dashboard screenshots', () => {
  let dns: TestDnsServer;
  let stack: DashboardStack;
  let data: Showcase;

  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    // Every lookup of the api and worker goes to this server: the sending domains' records.
    dns = await startDnsServer();
    stack = await startDashboardStack({
      name: 'Northwind Coffee',
      env: { DNS_SERVERS: dns.address, BOUNCE_DOMAIN },
    });
    data = await seedShowcase(stack, dns);
    await signIn(stack);
  }, 300_000);
  afterAll(async () => {
    await stack.close();
    if (data) await new Promise((r) => data.receiver.close(r));
    await dns.stop();
  });

  it('writes one screenshot per page', async () => {
    const { page } = stack;
    const shots: [string, string, string][] = [
      ['overview', '', 'Overview'],
      ['contacts', '/contacts', 'Contacts'],
      ['contact', `/contacts/${data.contactId}`, ''],
      ['lists', '/lists', 'Lists'],
      ['segments', '/segments', 'Segments'],
      ['segment-editor', `/segments/${data.segmentId}`, 'Active VIPs'],
      ['imports', '/imports', 'Imports'],
      ['import', `/imports/${data.importId}`, 'newsletter-signups.csv'],
      ['messages', '/messages', 'Messages'],
      ['message', `/messages/${data.jobId}`, 'Message'],
      ['campaigns', '/campaigns', 'Campaigns'],
      ['campaign', `/campaigns/${data.campaignId}`, 'Spring single-origin launch'],
      ['revenue', '/revenue', 'Revenue'],
      ['webhooks', '/webhooks', 'Webhooks'],
      ['webhook', `/webhooks/${data.endpointId}`, 'Webhook endpoint'],
      ['api-keys', '/api-keys', 'API keys'],
      ['sending-domains', '/sending-domains', 'Sending domains'],
      ['sending-domain', `/sending-domains/${data.domainId}`, 'northwind-wholesale.example'],
    ];
    for (const [name, path, heading] of shots) {
      await page.goto(`${stack.baseUrl}${path}`);
      if (heading) await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await page.waitForLoadState('networkidle');
      await page.mouse.move(0, 0); // no hover tooltip in the picture
      await page.waitForTimeout(600); // chart animations
      await page.screenshot({ path: join(OUT, `${name}.png`) });
    }
    expect(shots).toHaveLength(18);
  }, 300_000);
});
