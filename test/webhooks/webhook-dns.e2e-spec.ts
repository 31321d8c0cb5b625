// Webhook targets are resolved by the platform's one resolver (§13 DNS_SERVERS), at creation and
// at every attempt, and the request goes to the address it checked.
import { INestApplication } from '@nestjs/common';
import { startDnsServer, TestDnsServer } from '../support/dns-server';
import { createSession } from '../support/session';
import { createApiApp, createWorker, Receiver, testConfig } from './webhook-support';
import { waitFor } from '../support/wait-for';

const ENDPOINTS = '/api/v1/user/webhook-endpoints';

describe('Webhook targets and DNS_SERVERS (e2e)', () => {
  let dns: TestDnsServer;
  let receiver: Receiver;
  const apps: INestApplication[] = [];

  beforeAll(async () => {
    dns = await startDnsServer();
    dns.set('hooks.dns.test', [{ type: 'A', data: '127.0.0.1' }]);
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    for (const a of apps.reverse()) await a.close();
    await receiver.stop();
    await dns.stop();
  });

  it('refuses a name that resolves to loopback on the configured DNS server', async () => {
    const config = testConfig('dns-guarded', {
      dnsServers: [dns.address],
      webhookAllowPrivateTargets: false,
    });
    const api = await createApiApp(config);
    apps.push(api);
    const s = await createSession(api);
    const res = await s.http
      .post(ENDPOINTS, { url: `http://hooks.dns.test:${receiver.port}/in`, events: ['test.event'] })
      .expect(422);
    expect(res.body.errors).toEqual([
      { field: 'url', rule: 'url', message: 'Please enter a valid URL' },
    ]);
    expect(dns.queries).toContain('hooks.dns.test A');
  });

  it('delivers to the address the configured DNS server gave, keeping the name in Host', async () => {
    const config = testConfig('dns-allowed', {
      dnsServers: [dns.address],
      webhookAllowPrivateTargets: true,
    });
    const api = await createApiApp(config);
    apps.push(api, await createWorker(config));
    const s = await createSession(api);
    const created = await s.http
      .post(ENDPOINTS, { url: `http://hooks.dns.test:${receiver.port}/in`, events: ['test.event'] })
      .expect(201);
    await s.http.post(`${ENDPOINTS}/${created.body.data.id}/test`).expect(201);
    const [request] = await waitFor(() => receiver.requests.length > 0 && receiver.requests);
    expect(request.headers.host).toBe(`hooks.dns.test:${receiver.port}`);
  });
});
