// Webhook endpoints (§10) with fake repositories and a fake resolver: the field rules, the plan's
// limit, the URL's target check, the secret, and the statistics built from delivery counters.
import type { DataSource, EntityManager } from 'typeorm';
import { asOrgId } from '../common/org-id';
import type { AppConfig } from '../config/app-config';
import type { DnsResolver } from '../dns/resolver';
import type { OrganizationService } from '../tenancy/organization.service';
import type { Plan } from '../tenancy/organization.entity';
import type {
  EndpointCounters,
  WebhookDeliveryLogRepository,
} from './webhook-delivery-log.repository';
import type {
  EndpointFields,
  EndpointRecord,
  WebhookEndpointRepository,
} from './webhook-endpoint.repository';
import { WebhookEndpointInput, WebhookEndpointService } from './webhook-endpoint.service';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const ID = '00000000-0000-4000-8000-0000000000e1';
const T0 = new Date('2030-01-01T00:00:00Z');

function record(fields: Partial<EndpointRecord> = {}): EndpointRecord {
  return {
    id: ID,
    organizationId: ORG,
    url: 'https://hooks.example.com/in',
    description: null,
    events: ['email.sent'],
    isActive: true,
    maxRetries: 5,
    timeoutSeconds: 30,
    customHeaders: [],
    createdAt: T0,
    updatedAt: T0,
    ...fields,
  };
}

function counters(fields: Partial<EndpointCounters> = {}): EndpointCounters {
  return {
    id: ID,
    isActive: true,
    delivered: 0,
    failed: 0,
    successRate: 0,
    lastTriggeredAt: null,
    ...fields,
  };
}

interface Options {
  plan?: Plan;
  existing?: number;
  stored?: EndpointRecord | null;
  allowPrivate?: boolean;
  lookup?: (host: string) => Promise<{ address: string; family: number }[]>;
  counterRows?: EndpointCounters[];
}

function setup(opts: Options = {}) {
  const em = { name: 'transaction' } as unknown as EntityManager;
  const ds = {
    transaction: jest.fn((work: (em: EntityManager) => Promise<unknown>) => work(em)),
  } as unknown as DataSource;
  const calls: string[] = [];
  const endpoints = {
    lockCreations: jest.fn(async (_org: string, _em: EntityManager) => {
      calls.push('lock');
    }),
    count: jest.fn(async (_org: string, _em: EntityManager) => {
      calls.push('count');
      return opts.existing ?? 0;
    }),
    insert: jest.fn(
      async (_org: string, _fields: EndpointFields, _secret: string, _em: EntityManager) => ID,
    ),
    page: jest.fn(async () => [[record()], 1] as [EndpointRecord[], number]),
    find: jest.fn(async (_org: string, _id: string) =>
      opts.stored === undefined ? record() : opts.stored,
    ),
    update: jest.fn(async () => undefined),
    remove: jest.fn(async (_org: string, _id: string) => true),
    setSecret: jest.fn(async (_org: string, _id: string, _secret: string) => undefined),
  };
  const log = {
    counters: jest.fn(async (_org: string, _ids?: string[]) => opts.counterRows ?? []),
  };
  const organizations = { get: jest.fn(async (id: string) => ({ id, plan: opts.plan ?? 'free' })) };
  const dns = {
    lookup: jest.fn(opts.lookup ?? (async () => [{ address: '93.184.216.34', family: 4 }])),
  };
  const config = { webhookAllowPrivateTargets: opts.allowPrivate ?? false } as AppConfig;
  const service = new WebhookEndpointService(
    ds,
    config,
    dns as unknown as DnsResolver,
    endpoints as unknown as WebhookEndpointRepository,
    log as unknown as WebhookDeliveryLogRepository,
    organizations as unknown as OrganizationService,
  );
  return { service, endpoints, log, organizations, dns, em, calls };
}

const input = (fields: Partial<WebhookEndpointInput> = {}): WebhookEndpointInput => ({
  url: 'https://hooks.example.com/in',
  events: ['email.sent'],
  ...fields,
});

/** The field errors of a 422, or the error itself when it is something else. */
async function fieldErrors(work: Promise<unknown>) {
  const err = (await work.catch((e: unknown) => e)) as { code?: string; errors?: unknown };
  expect(err.code).toBe('E_VALIDATION_ERROR');
  return err.errors;
}

describe('WebhookEndpointService.create', () => {
  it('stores the endpoint with the defaults and unique events, and answers its secret once', async () => {
    const { service, endpoints, em, calls } = setup();
    const { view, secret } = await service.create(
      ORG,
      input({ events: ['email.sent', 'email.sent', 'contact.created'] }),
    );
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(calls).toEqual(['lock', 'count']);
    expect(endpoints.insert).toHaveBeenCalledWith(
      ORG,
      {
        url: 'https://hooks.example.com/in',
        description: null,
        events: ['email.sent', 'contact.created'],
        isActive: true,
        maxRetries: 5,
        timeoutSeconds: 30,
        customHeaders: [],
      },
      secret,
      em,
    );
    expect(view).toEqual({
      endpoint: record(),
      totalDeliveries: 0,
      successRate: 0,
      lastTriggeredAt: null,
    });
    expect(JSON.stringify(view)).not.toContain(secret);
  });

  it.each([
    ['free', 3],
    ['pro', 20],
    ['enterprise', 100],
  ] as [Plan, number][])(
    'on the %s plan, allows %i endpoints and refuses one more with 409',
    async (plan, limit) => {
      const below = setup({ plan, existing: limit - 1 });
      await expect(below.service.create(ORG, input())).resolves.toHaveProperty('secret');
      const at = setup({ plan, existing: limit });
      await expect(at.service.create(ORG, input())).rejects.toMatchObject({
        code: 'E_BUSINESS_RULE_VIOLATION',
        message: 'Webhook endpoint limit reached',
      });
      expect(at.endpoints.insert).not.toHaveBeenCalled();
    },
  );

  it('refuses no events and unknown event types on the events field', async () => {
    const { service, endpoints } = setup();
    expect(await fieldErrors(service.create(ORG, input({ events: [] })))).toEqual([
      expect.objectContaining({ field: 'events', rule: 'required' }),
    ]);
    expect(
      await fieldErrors(service.create(ORG, input({ events: ['email.sent', 'email.exploded'] }))),
    ).toEqual([
      {
        field: 'events',
        rule: 'enum',
        message: 'Unknown event type: email.exploded',
      },
    ]);
    expect(endpoints.insert).not.toHaveBeenCalled();
  });

  it('names each bad custom header by its index', async () => {
    const { service } = setup();
    const errors = await fieldErrors(
      service.create(
        ORG,
        input({
          customHeaders: [
            { key: 'X-Good', value: 'fine' },
            { key: 'Bad Name', value: 'v' },
            { key: 'Host', value: 'evil.example' },
            { key: 'X-Split', value: 'a\r\nInjected: 1' },
          ],
        }),
      ),
    );
    expect(errors).toEqual([
      expect.objectContaining({ field: 'customHeaders.1.key', rule: 'type' }),
      expect.objectContaining({ field: 'customHeaders.2.key', rule: 'enum' }),
      expect.objectContaining({ field: 'customHeaders.3.value', rule: 'type' }),
    ]);
  });

  it('allows at most 20 custom headers', async () => {
    const { service } = setup();
    const headers = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ key: `X-H${i}`, value: 'v' }));
    await expect(service.create(ORG, input({ customHeaders: headers(20) }))).resolves.toBeDefined();
    expect(await fieldErrors(service.create(ORG, input({ customHeaders: headers(21) })))).toEqual([
      expect.objectContaining({ field: 'customHeaders', rule: 'maxLength' }),
    ]);
  });

  it('refuses a URL that is not absolute http(s) or carries credentials', async () => {
    const { service } = setup();
    for (const url of ['ftp://hooks.example.com/', 'not a url', 'https://u:p@hooks.example.com/']) {
      expect(await fieldErrors(service.create(ORG, input({ url })))).toEqual([
        { field: 'url', rule: 'url', message: 'Please enter a valid URL' },
      ]);
    }
  });

  it('refuses a private target, literal or resolved, unless private targets are allowed', async () => {
    const literal = setup();
    expect(
      await fieldErrors(literal.service.create(ORG, input({ url: 'http://10.0.0.7/hook' }))),
    ).toEqual([expect.objectContaining({ field: 'url' })]);
    const resolved = setup({ lookup: async () => [{ address: '127.0.0.1', family: 4 }] });
    expect(
      await fieldErrors(resolved.service.create(ORG, input({ url: 'https://inside.example/' }))),
    ).toEqual([expect.objectContaining({ field: 'url' })]);
    expect(resolved.dns.lookup).toHaveBeenCalledWith('inside.example');
    const allowed = setup({ allowPrivate: true });
    await expect(
      allowed.service.create(ORG, input({ url: 'http://10.0.0.7/hook' })),
    ).resolves.toHaveProperty('secret');
    expect(allowed.dns.lookup).not.toHaveBeenCalled();
  });

  it('accepts a name that does not resolve yet: every attempt checks it again', async () => {
    const { service, endpoints } = setup({
      lookup: async () => {
        throw Object.assign(new Error('queryA ENOTFOUND'), { code: 'ENOTFOUND' });
      },
    });
    await expect(service.create(ORG, input())).resolves.toHaveProperty('secret');
    expect(endpoints.insert).toHaveBeenCalled();
  });

  it('accepts the URL when the lookup does not answer within 3 seconds', async () => {
    jest.useFakeTimers();
    try {
      const { service, endpoints } = setup({ lookup: () => new Promise(() => undefined) });
      const created = service.create(ORG, input());
      await jest.advanceTimersByTimeAsync(2999);
      expect(endpoints.insert).not.toHaveBeenCalled();
      await jest.advanceTimersByTimeAsync(1);
      await expect(created).resolves.toHaveProperty('secret');
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('WebhookEndpointService reads and changes', () => {
  it('lists endpoints with their counters, and zeros for one without deliveries', async () => {
    const other = record({ id: 'ep-2' });
    const { service, endpoints, log } = setup({
      counterRows: [counters({ delivered: 9, failed: 1, successRate: 90, lastTriggeredAt: T0 })],
    });
    endpoints.page.mockResolvedValueOnce([[record(), other], 2]);
    const page = await service.list(ORG, { page: 1, limit: 10 });
    expect(log.counters).toHaveBeenCalledWith(ORG, [ID, 'ep-2']);
    expect(page.total).toBe(2);
    expect(page.items).toEqual([
      { endpoint: record(), totalDeliveries: 10, successRate: 90, lastTriggeredAt: T0 },
      { endpoint: other, totalDeliveries: 0, successRate: 0, lastTriggeredAt: null },
    ]);
  });

  it('answers 404 for an endpoint of no organization it can see', async () => {
    const { service, endpoints } = setup({ stored: null });
    await expect(service.view(ORG, ID)).rejects.toMatchObject({ code: 'E_ROW_NOT_FOUND' });
    await expect(service.update(ORG, ID, { isActive: false })).rejects.toMatchObject({
      code: 'E_ROW_NOT_FOUND',
    });
    await expect(service.regenerateSecret(ORG, ID)).rejects.toMatchObject({
      code: 'E_ROW_NOT_FOUND',
    });
    expect(endpoints.find).toHaveBeenCalledWith(ORG, ID);
    expect(endpoints.update).not.toHaveBeenCalled();
    expect(endpoints.setSecret).not.toHaveBeenCalled();
    endpoints.remove.mockResolvedValueOnce(false);
    await expect(service.remove(ORG, ID)).rejects.toMatchObject({ code: 'E_ROW_NOT_FOUND' });
    expect(endpoints.remove).toHaveBeenCalledWith(ORG, ID);
  });

  it('checks only the fields a change carries, and stores its events once each', async () => {
    const { service, endpoints, dns } = setup();
    await service.update(ORG, ID, { isActive: false });
    expect(dns.lookup).not.toHaveBeenCalled();
    expect(endpoints.update).toHaveBeenLastCalledWith(ORG, ID, {
      isActive: false,
      events: undefined,
    });
    await service.update(ORG, ID, { events: ['email.sent', 'email.sent'] });
    expect(endpoints.update).toHaveBeenLastCalledWith(ORG, ID, { events: ['email.sent'] });
    expect(await fieldErrors(service.update(ORG, ID, { events: [] }))).toEqual([
      expect.objectContaining({ field: 'events' }),
    ]);
    expect(await fieldErrors(service.update(ORG, ID, { url: 'http://192.168.1.1/' }))).toEqual([
      expect.objectContaining({ field: 'url' }),
    ]);
    expect(endpoints.update).toHaveBeenCalledTimes(2);
  });

  it('regenerates the secret: a new one is stored and answered', async () => {
    const { service, endpoints } = setup();
    const first = await service.regenerateSecret(ORG, ID);
    const second = await service.regenerateSecret(ORG, ID);
    expect(first.secret).not.toBe(second.secret);
    expect(endpoints.setSecret).toHaveBeenNthCalledWith(1, ORG, ID, first.secret);
    expect(endpoints.setSecret).toHaveBeenNthCalledWith(2, ORG, ID, second.secret);
    expect(first.view.endpoint.id).toBe(ID);
  });
});

describe('WebhookEndpointService.statistics', () => {
  it('counts active, inactive and failing endpoints and rebuilds the overall rate', async () => {
    const { service, log } = setup({
      counterRows: [
        counters({ id: 'a', delivered: 99, failed: 1, successRate: 99 }),
        // Failing: active, finished deliveries, below 95.
        counters({ id: 'b', delivered: 2, failed: 1, successRate: 66.7 }),
        // Inactive endpoints are never failing.
        counters({ id: 'c', isActive: false, delivered: 0, failed: 4, successRate: 0 }),
        // No finished delivery: not failing.
        counters({ id: 'd' }),
      ],
    });
    const stats = await service.statistics(ORG);
    expect(log.counters).toHaveBeenCalledWith(ORG);
    // (990·100 + 667·3 + 0·4) / 107 = 943.9… → 94.4
    expect(stats).toEqual({
      totalEndpoints: 4,
      activeEndpoints: 3,
      inactiveEndpoints: 1,
      failingEndpoints: 1,
      totalDeliveries: 107,
      overallSuccessRate: 94.4,
    });
  });

  it('answers a rate of 0 without any delivery', async () => {
    const stats = await setup().service.statistics(ORG);
    expect(stats).toEqual({
      totalEndpoints: 0,
      activeEndpoints: 0,
      inactiveEndpoints: 0,
      failingEndpoints: 0,
      totalDeliveries: 0,
      overallSuccessRate: 0,
    });
  });
});
