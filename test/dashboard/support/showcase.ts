// Realistic data for the dashboard's screenshots, arranged through the public API as a customer
// would: an import of a few hundred contacts, lists, segments, sent email with attempts and
// opens, campaigns, 30 days of conversions, webhook endpoints with deliveries, API keys and sending
// domains whose DNS records are published in a DNS server on loopback.
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { DashboardStack } from './browser';
import { DomainJson, publish } from '../../sending-domains/support';
import type { TestDnsServer } from '../../support/dns-server';
import { waitFor } from '../../support/wait-for';

const FIRST = [
  'Olivia',
  'Liam',
  'Emma',
  'Noah',
  'Ava',
  'Lucas',
  'Mia',
  'Ethan',
  'Sofia',
  'Mateo',
  'Isla',
  'Leo',
  'Chloe',
  'Hugo',
  'Amara',
  'Yuki',
  'Priya',
  'Omar',
  'Lena',
  'Felix',
  'Nora',
  'Arjun',
  'Zoe',
  'Tomás',
];
const LAST = [
  'Smith',
  'García',
  'Müller',
  'Rossi',
  'Dubois',
  'Kowalski',
  'Nakamura',
  'Okafor',
  'Silva',
  'Jensen',
  'Novak',
  'Patel',
  'Andersen',
  'Costa',
  'Fischer',
  'Moreau',
  'Kim',
  'Haddad',
  'Lindqvist',
  'Murphy',
];
const CITIES = ['Lisbon', 'Berlin', 'Lyon', 'Austin', 'Osaka', 'Dublin', 'Porto', 'Oslo'];

/** Deterministic pseudo-random numbers: the screenshots show the same data every run. */
function rng(seed: number) {
  return () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

export interface Showcase {
  receiver: Server;
  contactId: string;
  segmentId: string;
  importId: string;
  jobId: string;
  campaignId: string;
  endpointId: string;
  /** A sending domain on its way: some records published, others not yet. */
  domainId: string;
}

/** `dns` is the server the api's DNS_SERVERS points at: the sending domains' records go there. */
export async function seedShowcase(stack: DashboardStack, dns: TestDnsServer): Promise<Showcase> {
  const { s, app, sink } = stack;
  const http = s.http;
  const rand = rng(42);
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];

  // Webhook endpoints first, so the import's contact.created events become deliveries.
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(req.url === '/crm' ? 200 : 503).end());
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const crm = await http
    .post('/api/v1/user/webhook-endpoints', {
      url: `${base}/crm`,
      description: 'CRM sync',
      events: ['contact.created', 'contact.updated', 'email.delivered'],
    })
    .expect(201);
  const analytics = await http
    .post('/api/v1/user/webhook-endpoints', {
      url: `${base}/analytics`,
      description: 'Analytics pipeline',
      events: ['email.opened', 'email.clicked'],
      maxRetries: 2,
    })
    .expect(201);
  await http
    .post('/api/v1/user/webhook-endpoints', {
      url: 'https://hooks.northwind.example/legacy',
      description: 'Legacy shop (paused)',
      events: ['email.bounced'],
      isActive: false,
    })
    .expect(201);

  // A finished import of 320 contacts into the newsletter list.
  const rows = ['First name,Last name,Email,City,Tags'];
  for (let i = 0; i < 320; i++) {
    const f = pick(FIRST);
    const l = pick(LAST);
    const tags = [
      rand() < 0.2 ? 'vip' : '',
      rand() < 0.5 ? 'newsletter' : '',
      rand() < 0.1 ? 'wholesale' : '',
    ]
      .filter(Boolean)
      .join(';');
    const local = `${f}.${l}`
      .normalize('NFD')
      .replace(/[^A-Za-z.]/g, '')
      .toLowerCase();
    rows.push(`${f},${l},${local}${i}@example.com,${pick(CITIES)},${tags}`);
  }
  rows.push('Broken,Row,not-an-email,Lisbon,');
  const upload = await http
    .post('/api/v1/user/contact-imports')
    .attach('file', Buffer.from(rows.join('\n')), 'newsletter-signups.csv')
    .expect(201);
  const importId: string = upload.body.data.import.id;
  await http
    .post(`/api/v1/user/contact-imports/${importId}/start`, {
      fieldMappings: upload.body.data.preview.suggestedMappings,
      allowPartialUpload: true,
      listName: 'Newsletter',
      consentConfirmed: true,
    })
    .expect(202);
  await waitFor(
    async () => {
      const r = await http.get(`/api/v1/user/contact-imports/${importId}`);
      return r.body.data.import.status.startsWith('completed');
    },
    { what: 'the import', timeoutMs: 60_000 },
  );

  const contacts = (await http.get('/api/v1/user/contacts?limit=100').expect(200)).body.data as {
    id: string;
    emails: { email: string }[];
    tags: string[];
  }[];
  const vip = (
    await http
      .post('/api/v1/user/contact-lists', {
        name: 'VIP customers',
        description: 'Top spenders of the last year',
      })
      .expect(201)
  ).body.data;
  await http.post('/api/v1/user/contact-lists', { name: 'Wholesale partners' }).expect(201);
  await http
    .post(`/api/v1/user/contact-lists/${vip.id}/members`, {
      contactIds: contacts.slice(0, 24).map((c) => c.id),
    })
    .expect((r) => r.status < 300);

  const segment = await http
    .post('/api/v1/user/contact-segments', {
      name: 'Active VIPs',
      description: 'Tagged vip, active, with an email address',
      type: 'dynamic',
      rules: {
        operator: 'and',
        conditions: [
          { field: 'tags', operator: 'hasAny', value: ['vip'] },
          { field: 'status', operator: 'equals', value: 'active' },
          { field: 'email', operator: 'isNotEmpty' },
        ],
      },
    })
    .expect(201);
  await http
    .post('/api/v1/user/contact-segments', {
      name: 'Joined this month',
      type: 'dynamic',
      rules: {
        operator: 'and',
        conditions: [{ field: 'createdAt', operator: 'withinLastDays', value: 30 }],
      },
    })
    .expect(201);
  await http
    .post('/api/v1/user/contact-segments', {
      name: 'Beta testers',
      type: 'static',
      contactIds: contacts.slice(30, 42).map((c) => c.id),
    })
    .expect(201);

  // Transactional email with opens.
  let jobId = '';
  for (const c of contacts.slice(0, 14)) {
    const res = await http
      .post('/api/v1/send', {
        from: 'Northwind Coffee <orders@northwind.example>',
        to: c.emails[0].email,
        subject: 'Your order is on its way',
        html: '<p>Your beans left our roastery today.</p><p><a href="https://northwind.example/track">Track it</a></p>',
        track: { opens: true, clicks: true },
        contactId: c.id,
      })
      .expect(202);
    jobId ||= res.body.data.jobId;
  }
  await sink.waitForMessages(14, 30_000);
  for (const m of sink.messages.slice(0, 9)) {
    const pixel = /\/t\/o\/[^"']+\.gif/.exec(String(m.parsed.html))?.[0];
    if (pixel)
      await request(app.getHttpServer())
        .get(pixel)
        .set('User-Agent', 'Mozilla/5.0 (Macintosh) AppleWebKit Mail');
  }

  // Campaigns: one sent to the VIP list, one draft.
  const campaign = await http
    .post('/api/v1/user/campaigns', {
      name: 'Spring single-origin launch',
      subject: 'New: Ethiopian Guji, roasted this week',
      from: 'Northwind Coffee <news@northwind.example>',
      text: 'Our spring lots are in. {{unsubscribe_url}}',
      listId: vip.id,
    })
    .expect(201);
  await http.post(`/api/v1/user/campaigns/${campaign.body.data.id}/send`).expect(202);
  const draft = await http
    .post('/api/v1/user/campaigns', {
      name: 'Autumn newsletter',
      subject: 'Harvest notes from our farmers',
      from: 'Northwind Coffee <news@northwind.example>',
      text: 'Harvest notes {{unsubscribe_url}}',
      segmentId: segment.body.data.id,
    })
    .expect(201);
  await waitFor(
    async () =>
      (await http.get(`/api/v1/user/campaigns/${campaign.body.data.id}`)).body.data.status ===
      'sent',
    { what: 'the campaign', timeoutMs: 60_000 },
  );

  // Conversions over the last 30 days, mostly email.
  const campaigns = [campaign.body.data.id, draft.body.data.id];
  for (let i = 0; i < 70; i++) {
    const ago = Math.floor(rand() * rand() * 30);
    await http
      .post('/api/v1/user/conversions', {
        campaignId: campaigns[rand() < 0.7 ? 0 : 1],
        orderId: `NW-${10_000 + i}`,
        revenue: Math.round((18 + rand() * 90) * 100) / 100,
        channel: rand() < 0.8 ? 'email' : rand() < 0.5 ? 'sms' : 'push',
        occurredAt: new Date(Date.now() - ago * 86_400_000 - rand() * 36_000_000).toISOString(),
      })
      .expect(201);
  }

  // The analytics receiver answers 503: its test events show failed deliveries.
  for (let i = 0; i < 3; i++) {
    await http
      .post(`/api/v1/user/webhook-endpoints/${analytics.body.data.id}/test`)
      .expect((r) => r.status < 300);
  }

  // API keys: the seeding key gets a storefront's name; two more in use, one revoked.
  await http.patch(`/api/v1/user/api-keys/${s.keyId}`, { name: 'Storefront' }).expect(200);
  await http
    .post('/api/v1/user/api-keys', {
      name: 'Shop backend',
      scopes: ['messages:send', 'contacts:write', 'contacts:read'],
      rateLimitPerMinute: 600,
    })
    .expect(201);
  await http
    .post('/api/v1/user/api-keys', {
      name: 'BI export',
      scopes: ['analytics:read', 'messages:read'],
      rateLimitPerDay: 10_000,
    })
    .expect(201);
  const old = await http
    .post('/api/v1/user/api-keys', { name: 'Old POS integration', scopes: ['contacts:write'] })
    .expect(201);
  await http.delete(`/api/v1/user/api-keys/${old.body.data.id}`).expect(200);

  // Sending domains: the shop's own domain with every record published, verified; the wholesale
  // domain added later, its DKIM record published but not yet its return path.
  const shop: DomainJson = (
    await http.post('/api/v1/user/sending-domains', { name: 'northwind.example' }).expect(201)
  ).body.data;
  publish(dns, shop);
  await http.post(`/api/v1/user/sending-domains/${shop.id}/verify`).expect(200);
  const wholesale: DomainJson = (
    await http
      .post('/api/v1/user/sending-domains', { name: 'northwind-wholesale.example' })
      .expect(201)
  ).body.data;
  publish(dns, wholesale, ['dkim']);
  await http.post(`/api/v1/user/sending-domains/${wholesale.id}/verify`).expect(200);

  await waitFor(
    async () =>
      (await http.get(`/api/v1/user/webhook-endpoints/${crm.body.data.id}`)).body.data
        .totalDeliveries >= 10,
    { what: 'webhook deliveries', timeoutMs: 60_000 },
  );
  return {
    receiver,
    contactId: contacts[0].id,
    segmentId: segment.body.data.id,
    importId,
    jobId,
    campaignId: campaign.body.data.id,
    endpointId: crm.body.data.id,
    domainId: wholesale.id,
  };
}
