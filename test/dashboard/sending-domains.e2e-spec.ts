// Sending domains in the dashboard, against a real DNS server on loopback (DNS_SERVERS): add a
// domain (an empty name refused beside the field, a second one of the same name refused), its
// four records shown and copied exactly, published and verified with "Verify now", deleted
// through a confirmation that says what goes.
import { startDnsServer, TestDnsServer } from '../support/dns-server';
import { BOUNCE_DOMAIN, DomainJson, publish, uniqueDomain } from '../sending-domains/support';
import {
  DashboardStack,
  navigate,
  seriousA11yViolations,
  signIn,
  startDashboardStack,
  textEventually,
} from './support/browser';

const BASE = '/api/v1/user/sending-domains';

describe('dashboard sending domains', () => {
  let dns: TestDnsServer;
  let stack: DashboardStack;
  const name = uniqueDomain('dash');

  beforeAll(async () => {
    dns = await startDnsServer();
    stack = await startDashboardStack({ env: { DNS_SERVERS: dns.address, BOUNCE_DOMAIN } });
    await signIn(stack);
  });
  afterAll(async () => {
    await stack.close();
    await dns.stop();
  });

  const domainOf = async (): Promise<DomainJson> => {
    const list = await stack.s.http.get(BASE).expect(200);
    return list.body.data.find((d: DomainJson) => d.name === name);
  };

  it('adds a domain; an empty name is refused with the API’s message beside the field', async () => {
    const { page } = stack;
    await navigate(page, 'Sending domains');
    await page.getByText('No sending domains yet').waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Add domain' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add sending domain' });
    expect(await seriousA11yViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Add domain' }).click();
    const input = dialog.getByLabel('Domain name');
    await page.waitForFunction(
      (el) => el?.getAttribute('aria-invalid') === 'true',
      await input.elementHandle(),
    );
    // The field's description and its error, both read with it.
    const describedBy =
      (await input.getAttribute('aria-describedby'))?.split(' ').filter(Boolean) ?? [];
    const described = await Promise.all(
      describedBy.map((id) => page.locator(`[id="${id}"]`).textContent()),
    );
    expect(described).toContain('name must be a domain name such as example.com');

    await input.fill(name);
    await dialog.getByRole('button', { name: 'Add domain' }).click();
    await page.getByRole('heading', { name, level: 1 }).waitFor();
    expect(await page.getByTestId('domain-status').textContent()).toBe('pending');
  });

  it('shows the four records to publish with their names and values, copied exactly', async () => {
    const { page } = stack;
    const domain = await domainOf();
    expect(domain.dnsRecords.map((r) => r.purpose).sort()).toEqual([
      'dkim',
      'dmarc',
      'return-path',
      'spf',
    ]);
    const rows = page.getByTestId('dns-records').locator('tbody tr');
    expect(await rows.count()).toBe(4);
    for (const r of domain.dnsRecords) {
      const row = page.locator(`tr[data-purpose="${r.purpose}"]`);
      const cells = await row.locator('code').allTextContents();
      expect({ purpose: r.purpose, cells }).toEqual({
        purpose: r.purpose,
        cells: [r.name, r.value],
      });
      expect(await row.textContent()).toContain(r.type);
      expect(await row.textContent()).toContain(r.required ? 'Yes' : 'No');
      expect(await page.getByTestId(`record-status-${r.purpose}`).textContent()).toBe('pending');
    }
    expect(await seriousA11yViolations(page)).toEqual([]);

    const dkim = domain.dnsRecords.find((r) => r.purpose === 'dkim')!;
    expect(dkim.value.length).toBeGreaterThan(255);
    await page.getByRole('button', { name: 'Copy DKIM key value' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(dkim.value);
    await page.getByRole('button', { name: 'Copy Return path name' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      domain.dnsRecords.find((r) => r.purpose === 'return-path')!.name,
    );
  });

  it('"Verify now" finds nothing at first, then verifies the domain once its records are published', async () => {
    const { page } = stack;
    const domain = await domainOf();
    // Nothing published yet: every record is failed, the domain still pending.
    await page.getByRole('button', { name: 'Verify now' }).click();
    await textEventually(page.getByTestId('record-status-dkim'), (t) => t === 'failed');
    expect(await page.getByTestId('domain-status').textContent()).toBe('pending');
    expect(await seriousA11yViolations(page)).toEqual([]);

    publish(dns, domain);
    await page.getByRole('button', { name: 'Verify now' }).click();
    await textEventually(page.getByTestId('domain-status'), (t) => t === 'verified');
    for (const r of domain.dnsRecords) {
      if (r.required) {
        expect(await page.getByTestId(`record-status-${r.purpose}`).textContent()).toBe('verified');
      }
    }
    const rows = page.getByTestId('dns-records').locator('tbody tr');
    for (const text of await rows.allTextContents()) expect(text).not.toContain('—');
    expect((await domainOf()).status).toBe('verified');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('refuses the same name twice with the API’s message; lists the domain as verified', async () => {
    const { page } = stack;
    await navigate(page, 'Sending domains');
    const row = page.getByRole('row').filter({ hasText: name });
    await textEventually(row, (t) => t.includes('verified'));
    await page.getByRole('button', { name: 'Add domain' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add sending domain' });
    await dialog.getByLabel('Domain name').fill(name);
    await dialog.getByRole('button', { name: 'Add domain' }).click();
    const alert = dialog.getByTestId('domain-form-error');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('A sending domain with this name already exists');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('deletes the domain through a confirmation that says what is lost', async () => {
    const { page } = stack;
    await page.getByRole('link', { name }).click();
    await page.getByRole('heading', { name, level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete sending domain' });
    const text = await confirm.textContent();
    expect(text).toMatch(/its DKIM key are deleted irreversibly/);
    expect(text).toMatch(/Mail From this domain and its subdomains can no longer be signed/);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await confirm.getByRole('button', { name: 'Delete domain' }).click();
    await page.getByRole('heading', { name: 'Sending domains', level: 1 }).waitFor();
    await page.getByText('No sending domains yet').waitFor();
    expect(await domainOf()).toBeUndefined();
  });
});
