// One resource of every kind in an organization, created through the API, so the fuzzer has real
// ids to aim at and the tenancy sweep has another organization's rows to reach for.
import { randomUUID } from 'node:crypto';
import type { OrgFixture } from './context';
import type { HttpClient } from './http';

/** The kinds of resource a route's path id can name. */
export const RESOURCE_KINDS = [
  'contact',
  'email',
  'sms',
  'whatsapp',
  'telegram',
  'imessage',
  'push',
  'tag',
  'list',
  'segment',
  'import',
  'message',
  'webhookEndpoint',
  'webhookDelivery',
  'campaign',
  'sendingDomain',
  'channelProvider',
  'apiKey',
] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

export interface SeededOrg {
  org: OrgFixture;
  /** One id per kind (the static segment for `segment`, the draft import for `import`). */
  ids: Record<ResourceKind, string>;
  /** Further ids worth aiming at: every segment, every import, every list... */
  extra: Record<string, string[]>;
  conversionOrderId: string;
  /** Headers of the seeded CSV, for field mappings. */
  csvHeaders: string[];
  /** Personal data and names of the seeded rows, to spot them in another organization's answers. */
  email: string;
  recipient: string;
  listName: string;
}

export function multipart(
  field: string,
  fileName: string,
  content: Buffer | string,
  contentType = 'text/csv',
): { body: Buffer; contentType: string } {
  const boundary = `----fuzz${randomUUID().replace(/-/g, '')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${fileName}"\r\n` +
      `Content-Type: ${contentType}\r\n\r\n`,
    'utf8',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');
  return {
    body: Buffer.concat([head, Buffer.isBuffer(content) ? content : Buffer.from(content), tail]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

async function upload(http: HttpClient, key: string, csv: string): Promise<string> {
  const form = multipart('file', 'contacts.csv', csv);
  const res = await http.request({
    method: 'POST',
    path: '/api/v1/user/contact-imports',
    headers: { 'x-api-key': key, 'content-type': form.contentType },
    body: form.body,
  });
  if (res.status !== 201) {
    throw new Error(`import upload answered ${res.status}: ${res.body.toString().slice(0, 300)}`);
  }
  return (res.json as { data: { import: { id: string } } }).data.import.id;
}

async function eventually<T>(what: string, read: () => Promise<T | undefined>): Promise<T> {
  const until = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`${what} did not appear within 30 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Creates one resource of every kind in `org` through its API key. */
export async function seedOrg(
  http: HttpClient,
  org: OrgFixture,
  receiverUrl: string,
): Promise<SeededOrg> {
  const key = org.apiKey;
  const tag8 = randomUUID().slice(0, 8);
  const post = <T = Record<string, unknown>>(path: string, body?: unknown) =>
    http.json<T>('POST', path, key, body ?? {});
  const get = <T = Record<string, unknown>>(path: string) => http.json<T>('GET', path, key);

  type Channel = { id: string };
  const contact = await post<{
    id: string;
    emails: Channel[];
    smsNumbers: Channel[];
    whatsappAccounts: Channel[];
    telegramAccounts: Channel[];
    imessageAccounts: Channel[];
    pushNotifications: Channel[];
  }>('/api/v1/user/contacts', {
    firstName: 'Seed',
    lastName: `Contact ${tag8}`,
    emails: [{ email: `seed-${tag8}@example.com`, isPrimary: true, status: 'verified' }],
    smsNumbers: [{ phoneNumber: '+14155550100' }],
    whatsappAccounts: [{ phoneNumber: '+14155550101' }],
    telegramAccounts: [{ phoneNumber: '+14155550102', username: `seed_${tag8}` }],
    imessageAccounts: [{ appleId: `apple-${tag8}@example.com` }],
    pushNotifications: [{ deviceToken: `token-${tag8}`, platform: 'ios' }],
  });
  const second = await post<{ id: string }>('/api/v1/user/contacts', {
    firstName: 'Second',
    emails: [{ email: `second-${tag8}@example.com`, isPrimary: true }],
  });

  const tag = await post<{ id: string }>('/api/v1/user/contact-tags', { name: `seed-${tag8}` });
  await post(`/api/v1/user/contacts/${contact.id}/tags`, { names: [`seed-${tag8}`] });
  const listName = `Seed list ${tag8}`;
  const list = await post<{ id: string }>('/api/v1/user/contact-lists', { name: listName });
  await post(`/api/v1/user/contact-lists/${list.id}/members`, {
    contactIds: [contact.id, second.id],
  });
  const staticSegment = await post<{ id: string }>('/api/v1/user/contact-segments', {
    name: `Static ${tag8}`,
    type: 'static',
    contactIds: [contact.id],
  });
  const dynamicSegment = await post<{ id: string }>('/api/v1/user/contact-segments', {
    name: `Dynamic ${tag8}`,
    type: 'dynamic',
    rules: {
      operator: 'and',
      conditions: [{ field: 'firstName', operator: 'startsWith', value: 'Se' }],
    },
  });

  const csvHeaders = ['email', 'first_name', 'last_name', 'phone'];
  const csv = `${csvHeaders.join(',')}\nimp-${tag8}@example.com,Imp,Orted,+14155550199\nbad-email,X,Y,12\n`;
  const draft = await upload(http, key, csv);
  const started = await upload(http, key, csv);
  await post(`/api/v1/user/contact-imports/${started}/start`, {
    fieldMappings: [
      { csvHeader: 'email', serviceField: 'email' },
      { csvHeader: 'first_name', serviceField: 'firstName' },
    ],
    allowPartialUpload: true,
    consentConfirmed: true,
  });

  const sent = await post<{ jobId: string }>('/api/v1/send', {
    from: `Seed <seed-${tag8}@example.com>`,
    to: `rcpt-${tag8}@example.com`,
    subject: 'Seed message',
    text: 'Seed',
  });

  const endpoint = await post<{ id: string }>('/api/v1/user/webhook-endpoints', {
    url: receiverUrl,
    events: ['contact.created', 'test.event'],
  });
  const testDelivery = await post<{ id?: string }>(
    `/api/v1/user/webhook-endpoints/${endpoint.id}/test`,
  );
  const deliveryId =
    testDelivery.id ??
    (await eventually('a webhook delivery', async () => {
      const rows = await get<Array<{ id: string }>>('/api/v1/user/webhook-deliveries');
      return rows[0]?.id;
    }));

  const campaign = await post<{ id: string }>('/api/v1/user/campaigns', {
    name: `Seed campaign ${tag8}`,
    subject: 'Seed campaign',
    html: '<p>Hello</p>',
    from: `seed-${tag8}@example.com`,
    listId: list.id,
  });
  const conversionOrderId = `order-${tag8}`;
  await post('/api/v1/user/conversions', {
    campaignId: campaign.id,
    contactId: contact.id,
    orderId: conversionOrderId,
    revenue: 42.5,
  });
  const sendingDomain = await post<{ id: string }>('/api/v1/user/sending-domains', {
    name: `seed-${tag8}.example.com`,
  });
  // Its API is a closed loopback port: a test send the fuzzer makes reaches no provider.
  const channelProvider = await post<{ id: string }>('/api/v1/user/channel-providers', {
    channel: 'sms',
    provider: 'twilio',
    name: `seed provider ${tag8}`,
    credentials: { accountSid: `AC${'0'.repeat(32)}`, authToken: 'f'.repeat(32) },
    settings: { from: '+14155550100', apiBaseUrl: 'http://127.0.0.1:9' },
  });
  const apiKey = await post<{ id: string }>('/api/v1/user/api-keys', {
    name: `seed key ${tag8}`,
    scopes: ['contacts:read'],
  });

  return {
    org,
    ids: {
      contact: contact.id,
      email: contact.emails[0].id,
      sms: contact.smsNumbers[0].id,
      whatsapp: contact.whatsappAccounts[0].id,
      telegram: contact.telegramAccounts[0].id,
      imessage: contact.imessageAccounts[0].id,
      push: contact.pushNotifications[0].id,
      tag: tag.id,
      list: list.id,
      segment: staticSegment.id,
      import: draft,
      message: sent.jobId,
      webhookEndpoint: endpoint.id,
      webhookDelivery: deliveryId,
      campaign: campaign.id,
      sendingDomain: sendingDomain.id,
      channelProvider: channelProvider.id,
      apiKey: apiKey.id,
    },
    extra: {
      contact: [second.id],
      segment: [dynamicSegment.id],
      import: [started],
    },
    conversionOrderId,
    csvHeaders,
    email: `seed-${tag8}@example.com`,
    recipient: `rcpt-${tag8}@example.com`,
    listName,
  };
}
