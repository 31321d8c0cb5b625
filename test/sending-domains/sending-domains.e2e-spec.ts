// Sending domains with a real DNS server on loopback. A domain is created
// with its DKIM key and records, verified once the records are published, failed by the daily
// re-check when its DKIM record is gone, failed after 72 hours of pending re-checks; a name
// verified by one organization cannot be verified by another; the admin commands do the same
// without HTTP.
import { INestApplication } from '@nestjs/common';
import { TestingModule } from '@nestjs/testing';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Clock, fieldCipher } from '@app/domain';
import { runAdmin } from '../../apps/api/src/cli';
import { DomainChecksScheduler } from '../../apps/worker/src/sending-domains/domain-checks.scheduler';
import { sendingEnv, startWorker } from '../sending/support/sending';
import { createTestApp } from '../support/app';
import { ManualClock } from '../support/clock';
import { startDnsServer, TestDnsServer } from '../support/dns-server';
import { client, createKey, createSession, Session } from '../support/session';
import {
  BOUNCE_DOMAIN,
  DomainJson,
  publish,
  record,
  uniqueDomain,
  verifiedDomain,
} from './support';

const BASE = '/api/v1/user/sending-domains';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('Sending domains', () => {
  let dns: TestDnsServer;
  let app: INestApplication;
  let worker: TestingModule;
  let clock: ManualClock;
  let s: Session;

  beforeAll(async () => {
    dns = await startDnsServer();
    sendingEnv({
      DNS_SERVERS: dns.address,
      BOUNCE_DOMAIN,
      SPF_INCLUDE: '_spf.platform.test',
      // Re-checks run when a test asks (runNow), at the worker clock's time.
      DOMAIN_CHECK_INTERVAL_MS: String(24 * HOUR),
    });
    app = await createTestApp();
    clock = new ManualClock(new Date());
    worker = await startWorker((b) => b.overrideProvider(Clock).useValue(clock));
    s = await createSession(app, { plan: 'pro' });
  });
  afterAll(async () => {
    await worker.close();
    await app.close();
    await dns.stop();
  });

  /** The worker's re-check run at `at` (worker clock). */
  async function recheckAt(at: Date): Promise<void> {
    clock.set(at);
    await worker.get(DomainChecksScheduler).runNow();
  }

  const get = async (http: Session['http'], id: string): Promise<DomainJson> =>
    (await http.get(`${BASE}/${id}`).expect(200)).body.data;

  it('creates a domain with a 2048-bit DKIM key and its records; the private key never leaves', async () => {
    const name = uniqueDomain('Shop');
    const res = await s.http.post(BASE, { name: ` ${name.toUpperCase()}. ` }).expect(201);
    expect(res.body.message).toBe('Sending domain created successfully');
    const d: DomainJson = res.body.data;
    expect(d).toEqual({
      id: expect.any(String),
      organizationId: s.org.id,
      name: name.toLowerCase(),
      status: 'pending',
      dkimSelector: expect.stringMatching(/^mp[0-9a-f]{10}$/),
      dnsRecords: expect.any(Array),
      verifiedAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const n = d.name;
    expect(d.dnsRecords).toEqual([
      {
        purpose: 'dkim',
        type: 'TXT',
        name: `${d.dkimSelector}._domainkey.${n}`,
        value: expect.stringMatching(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/]+=*$/),
        required: true,
        status: 'pending',
        lastCheckedAt: null,
      },
      {
        purpose: 'return-path',
        type: 'CNAME',
        name: `bounces.${n}`,
        value: BOUNCE_DOMAIN,
        required: true,
        status: 'pending',
        lastCheckedAt: null,
      },
      {
        purpose: 'spf',
        type: 'TXT',
        name: n,
        value: 'v=spf1 include:_spf.platform.test ~all',
        required: false,
        status: 'pending',
        lastCheckedAt: null,
      },
      {
        purpose: 'dmarc',
        type: 'TXT',
        name: `_dmarc.${n}`,
        value: 'v=DMARC1; p=none',
        required: false,
        status: 'pending',
        lastCheckedAt: null,
      },
    ]);
    const p = record(d, 'dkim').value.split('p=')[1];
    const publicKey = createPublicKey({
      key: Buffer.from(p, 'base64'),
      format: 'der',
      type: 'spki',
    });
    expect(publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(JSON.stringify(res.body)).not.toMatch(/PRIVATE|privateKey/i);

    // At rest: encrypted like channel values; decrypted, the pair of the published key.
    const [row] = await app
      .get(DataSource)
      .query(
        `SELECT dkim_private_key FROM sending_domains WHERE organization_id = $1 AND id = $2`,
        [s.org.id, d.id],
      );
    expect(row.dkim_private_key).toMatch(/^v1:/);
    expect(row.dkim_private_key).not.toContain('PRIVATE KEY');
    const pem = fieldCipher().decrypt(row.dkim_private_key);
    expect(createPublicKey(createPrivateKey(pem)).export({ format: 'der', type: 'spki' })).toEqual(
      Buffer.from(p, 'base64'),
    );

    // One name once per organization; names are checked; international names in IDNA form.
    const dup = await s.http.post(BASE, { name: n }).expect(409);
    expect(dup.body.code).toBe('E_BUSINESS_RULE_VIOLATION');
    for (const bad of ['localhost', 'not a domain', 'user@example.com', '-x.example.com']) {
      const r = await s.http.post(BASE, { name: bad }).expect(422);
      expect(r.body.errors).toEqual([{ field: 'name', rule: 'type', message: expect.any(String) }]);
    }
    await s.http.post(BASE, {}).expect(422);
    await s.http.post(BASE, { name: n, extra: 1 }).expect(422);
    const idn = await s.http.post(BASE, { name: `bücher-${n}` }).expect(201);
    expect(idn.body.data.name).toMatch(/^xn--bcher-.+-[a-z0-9]+\.test$/);
  });

  it('verifies once both required records are published; SPF and DMARC are only reported', async () => {
    const created: DomainJson = (
      await s.http.post(BASE, { name: uniqueDomain('mail') }).expect(201)
    ).body.data;
    const verify = async () =>
      (await s.http.post(`${BASE}/${created.id}/verify`).expect(200)).body.data as DomainJson;

    let d = await verify();
    expect(d.status).toBe('pending');
    for (const r of d.dnsRecords) {
      expect(r.status).toBe('failed');
      expect(Date.parse(r.lastCheckedAt!)).toBeGreaterThan(0);
    }

    // The DKIM record as a DNS console may show it: split into strings, spaces changed.
    const dkim = record(created, 'dkim');
    dns.set(dkim.name, [
      { type: 'TXT', data: dkim.value.replace(/; /g, ';  ').replace('p=', 'p= ') },
    ]);
    d = await verify();
    expect(d.status).toBe('pending');
    expect(record(d, 'dkim').status).toBe('verified');
    expect(record(d, 'return-path').status).toBe('failed');

    publish(dns, created, ['return-path']);
    d = await verify();
    expect(d.status).toBe('verified');
    expect(Date.parse(d.verifiedAt!)).toBeGreaterThan(0);
    expect(record(d, 'spf').status).toBe('failed');
    expect(record(d, 'dmarc').status).toBe('failed');

    publish(dns, created, ['spf', 'dmarc']);
    d = await verify();
    expect(d.dnsRecords.map((r) => r.status)).toEqual([
      'verified',
      'verified',
      'verified',
      'verified',
    ]);
    expect(dns.queries).toContain(`${dkim.name} TXT`);
    expect(dns.queries).toContain(`bounces.${created.name} CNAME`);
  });

  it('fails a verified domain at the daily re-check once its DKIM record is gone', async () => {
    const d = await verifiedDomain(s.http, dns, uniqueDomain('daily'));
    dns.remove(record(d, 'dkim').name);
    // Not due within the day: still verified.
    await recheckAt(new Date(Date.now() + HOUR));
    expect((await get(s.http, d.id)).status).toBe('verified');

    await recheckAt(new Date(Date.now() + 25 * HOUR));
    const failed = await get(s.http, d.id);
    expect(failed.status).toBe('failed');
    expect(record(failed, 'dkim').status).toBe('failed');
    expect(record(failed, 'return-path').status).toBe('verified');

    // The record back: the re-checks that follow a failure find it.
    publish(dns, d, ['dkim']);
    await recheckAt(new Date(Date.now() + 25 * HOUR + 11 * MINUTE));
    expect((await get(s.http, d.id)).status).toBe('verified');
  });

  it('re-checks a pending domain every 10 minutes, and fails it after 72 hours', async () => {
    const created = (await s.http.post(BASE, { name: uniqueDomain('slow') }).expect(201)).body
      .data as DomainJson;
    await recheckAt(new Date(Date.now() + 11 * MINUTE));
    let d = await get(s.http, created.id);
    expect(d.status).toBe('pending');
    expect(record(d, 'dkim').status).toBe('failed');
    const [{ next_check_at }] = await app
      .get(DataSource)
      .query(`SELECT next_check_at FROM sending_domains WHERE organization_id = $1 AND id = $2`, [
        s.org.id,
        created.id,
      ]);
    expect(next_check_at.getTime() - clock.now().getTime()).toBe(10 * MINUTE);

    await recheckAt(new Date(Date.now() + 73 * HOUR));
    d = await get(s.http, created.id);
    expect(d.status).toBe('failed');

    // Published late: a check on request still verifies it.
    publish(dns, created);
    d = (await s.http.post(`${BASE}/${created.id}/verify`).expect(200)).body.data;
    expect(d.status).toBe('verified');
  });

  it('lets one organization at most verify a name', async () => {
    const name = uniqueDomain('contested');
    const a = await verifiedDomain(s.http, dns, name);
    const other = await createSession(app);
    const b: DomainJson = (await other.http.post(BASE, { name }).expect(201)).body.data;
    expect(b.dkimSelector).not.toBe(a.dkimSelector);
    publish(dns, b, ['dkim']);
    const refused = await other.http.post(`${BASE}/${b.id}/verify`).expect(409);
    expect(refused.body).toEqual({
      success: false,
      message: 'This domain is verified by another organization',
      code: 'E_BUSINESS_RULE_VIOLATION',
    });
    // Nor does the worker verify it for B, though B's records are all there.
    await recheckAt(new Date(Date.now() + 11 * MINUTE));
    const held = await get(other.http, b.id);
    expect(held.status).toBe('pending');
    expect(record(held, 'dkim').status).toBe('verified');

    // Once A lets the name go, B can verify it.
    await s.http.delete(`${BASE}/${a.id}`).expect(200);
    await s.http.get(`${BASE}/${a.id}`).expect(404);
    expect((await other.http.post(`${BASE}/${b.id}/verify`).expect(200)).body.data.status).toBe(
      'verified',
    );
  });

  it('lists an organization’s domains, newest first, paginated; scopes guard the routes', async () => {
    const own = await createSession(app);
    for (const prefix of ['one', 'two', 'three']) {
      await own.http.post(BASE, { name: uniqueDomain(prefix) }).expect(201);
    }
    const page = await own.http.get(`${BASE}?limit=2`).expect(200);
    expect(page.body.data).toHaveLength(2);
    expect(page.body.data[0].name).toMatch(/^three-/);
    expect(page.body.meta).toMatchObject({ total: 3, perPage: 2, lastPage: 2 });

    const reader = await createKey(app, own.org.id, { scopes: ['domains:read'] });
    const readOnly = client(app, { 'X-API-Key': reader.value });
    await readOnly.get(BASE).expect(200);
    const refused = await readOnly.post(BASE, { name: uniqueDomain('nope') }).expect(403);
    expect(refused.body.code).toBe('E_INSUFFICIENT_SCOPE');
  });

  it('offers add-domain, verify-domain and list-domains as admin commands', async () => {
    const name = uniqueDomain('cli');
    const added = (await runAdmin(['add-domain', '--org', s.org.id, '--name', name, '--json']))
      .sendingDomain as DomainJson;
    expect(added).toMatchObject({ name, status: 'pending', organizationId: s.org.id });
    expect(added.dnsRecords).toHaveLength(4);
    publish(dns, added);
    const verified = (
      await runAdmin(['verify-domain', '--org', s.org.id, '--id', added.id, '--json'])
    ).sendingDomain as DomainJson;
    expect(verified.status).toBe('verified');
    const listed = await runAdmin(['list-domains', '--org', s.org.id, '--json']);
    expect((listed.sendingDomains as DomainJson[]).map((x) => x.name)).toContain(name);
    expect(listed.total).toBeGreaterThanOrEqual(1);
    await expect(
      runAdmin([
        'verify-domain',
        '--org',
        s.org.id,
        '--id',
        '00000000-0000-4000-8000-000000000000',
      ]),
    ).rejects.toMatchObject({ code: 'E_ROW_NOT_FOUND' });
  });
});
