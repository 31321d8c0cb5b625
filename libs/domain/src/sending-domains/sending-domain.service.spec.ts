// Sending domains (§13, §16) with a fake repository and sweeper, a fake DNS zone and a stand-in key generator:
// the name rule, the plan's number of domains, the records to publish, the checks and the rule that
// a name is verified by one organization at most.
import { Logger } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from '../common/clock';
import { asOrgId } from '../common/org-id';
import type { AppConfig } from '../config/app-config';
import type { DnsResolver } from '../dns/resolver';
import type { Organization, Plan } from '../tenancy/organization.entity';
import type { OrganizationService } from '../tenancy/organization.service';
import type { DkimKeyGenerator } from './dkim-key';
import type { CheckOutcome } from './domain-verification';
import { CHECK_WINDOW_MS, RECHECK_MS, VERIFIED_RECHECK_MS } from './domain-verification';
import type { SendingDomain } from './sending-domain.entity';
import type { SendingDomainRepository } from './sending-domain.repository';
import { sendingDomainLimit, SendingDomainService } from './sending-domain.service';
import type { SendingDomainSweeper } from './sending-domain.sweeper';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const ID = '00000000-0000-4000-8000-0000000000d1';
const NOW = new Date('2030-06-01T12:00:00Z');
const PUBLIC_KEY = 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAtest';
const HOSTS = { bounceDomain: 'bounces.platform.test', spfInclude: 'spf.platform.test' };

function domain(fields: Partial<SendingDomain> = {}): SendingDomain {
  return {
    id: ID,
    organizationId: ORG,
    name: 'example.com',
    status: 'pending',
    dkimSelector: 'bk1',
    dkimPublicKey: PUBLIC_KEY,
    dkimPrivateKey: 'private',
    recordChecks: {},
    verifiedAt: null,
    lastCheckedAt: null,
    nextCheckAt: new Date(NOW.getTime() + RECHECK_MS),
    checkUntil: new Date(NOW.getTime() + CHECK_WINDOW_MS),
    createdAt: NOW,
    updatedAt: NOW,
    ...fields,
  };
}

/** The records of example.com as its owner published them, name by name. */
function publishedZone(): Map<string, { txt?: string[]; cname?: string[] }> {
  return new Map([
    ['bk1._domainkey.example.com', { txt: [`v=DKIM1; k=rsa; p=${PUBLIC_KEY}`] }],
    ['bounces.example.com', { cname: [HOSTS.bounceDomain] }],
    ['example.com', { txt: [`v=spf1 include:${HOSTS.spfInclude} ~all`] }],
    ['_dmarc.example.com', { txt: ['v=DMARC1; p=none'] }],
  ]);
}

interface Options {
  plan?: Plan;
  maxSendingDomains?: number | null;
  existing?: number[];
  stored?: SendingDomain | null;
  zone?: Map<string, { txt?: string[]; cname?: string[] }>;
  elsewhere?: boolean[];
}

function setup(opts: Options = {}) {
  const em = { name: 'transaction' } as unknown as EntityManager;
  const ds = {
    transaction: jest.fn((work: (em: EntityManager) => Promise<unknown>) => work(em)),
  } as unknown as DataSource;
  const counts = [...(opts.existing ?? [0, 0])];
  const elsewhere = [...(opts.elsewhere ?? [false])];
  const repository = {
    count: jest.fn(async (_org: string, _em?: EntityManager) => counts.shift() ?? 0),
    lockCreations: jest.fn(async () => undefined),
    insert: jest.fn(
      async (_org: string, d: Partial<SendingDomain>, _now: Date, _em: EntityManager) =>
        domain({ ...d, status: 'pending' }) as SendingDomain | null,
    ),
    list: jest.fn(async () => ({ items: [domain()], total: 1 })),
    get: jest.fn(async (_org: string, _id: string) =>
      opts.stored === undefined ? domain() : opts.stored,
    ),
    remove: jest.fn(async (_org: string, _id: string) => true),
    verifiedElsewhere: jest.fn(async (_org: string, _name: string) =>
      elsewhere.length > 1 ? elsewhere.shift()! : elsewhere[0],
    ),
    recordCheck: jest.fn(
      async (
        _org: string,
        _id: string,
        c: CheckOutcome,
        now: Date,
      ): Promise<SendingDomain | null | 'taken'> => {
        const { matched: _m, ...state } = c;
        return domain({ ...state, lastCheckedAt: now });
      },
    ),
  };
  const sweeper = {
    claimDue: jest.fn(async (_now: Date, _limit: number, _lease: number) => [] as SendingDomain[]),
  };
  const zone = opts.zone ?? publishedZone();
  const absent = () => Object.assign(new Error('queryTxt ENOTFOUND'), { code: 'ENOTFOUND' });
  const dns = {
    resolveTxt: jest.fn(async (name: string) => {
      const txt = zone.get(name)?.txt;
      if (!txt) throw absent();
      return txt.map((t) => [t]);
    }),
    resolveCname: jest.fn(async (name: string) => {
      const cname = zone.get(name)?.cname;
      if (!cname) throw absent();
      return cname;
    }),
  };
  const organizations = {
    get: jest.fn(
      async (id: string) =>
        ({
          id,
          plan: opts.plan ?? 'free',
          maxSendingDomains: opts.maxSendingDomains ?? null,
        }) as Organization,
    ),
  };
  const keys = {
    generate: jest.fn(async () => ({
      selector: 'bk1',
      publicKey: PUBLIC_KEY,
      privateKey: 'private',
      threadId: 1,
      startedAt: 0,
      endedAt: 1,
    })),
  };
  const clock: Clock = { now: () => NOW };
  const config = { sendingDomains: { ...HOSTS, policy: 'require' } } as unknown as AppConfig;
  const service = new SendingDomainService(
    ds,
    repository as unknown as SendingDomainRepository,
    sweeper as unknown as SendingDomainSweeper,
    dns as unknown as DnsResolver,
    clock,
    config,
    organizations as unknown as OrganizationService,
    keys as unknown as DkimKeyGenerator,
  );
  return { service, repository, sweeper, dns, keys, em };
}

beforeAll(() => Logger.overrideLogger(false));
afterAll(() => Logger.overrideLogger(true));

describe('sendingDomainLimit', () => {
  it("is the plan's number unless the organization has its own", () => {
    expect(sendingDomainLimit({ plan: 'free', maxSendingDomains: null })).toBe(3);
    expect(sendingDomainLimit({ plan: 'pro', maxSendingDomains: null })).toBe(50);
    expect(sendingDomainLimit({ plan: 'enterprise', maxSendingDomains: null })).toBe(500);
    expect(sendingDomainLimit({ plan: 'free', maxSendingDomains: 0 })).toBe(0);
    expect(sendingDomainLimit({ plan: 'free', maxSendingDomains: 12 })).toBe(12);
  });
});

describe('SendingDomainService.create', () => {
  it('stores the normalised name with a new key and a 72-hour window of checks', async () => {
    const { service, repository, em } = setup();
    const view = await service.create(ORG, { name: ' Bücher.Example. ' });
    expect(repository.insert).toHaveBeenCalledWith(
      ORG,
      {
        name: 'xn--bcher-kva.example',
        dkimSelector: 'bk1',
        dkimPublicKey: PUBLIC_KEY,
        dkimPrivateKey: 'private',
        nextCheckAt: new Date(NOW.getTime() + RECHECK_MS),
        checkUntil: new Date(NOW.getTime() + CHECK_WINDOW_MS),
      },
      NOW,
      em,
    );
    expect(view.dnsRecords.map((r) => [r.purpose, r.name, r.required, r.status])).toEqual([
      ['dkim', 'bk1._domainkey.xn--bcher-kva.example', true, 'pending'],
      ['return-path', 'bounces.xn--bcher-kva.example', true, 'pending'],
      ['spf', 'xn--bcher-kva.example', false, 'pending'],
      ['dmarc', '_dmarc.xn--bcher-kva.example', false, 'pending'],
    ]);
    expect(view.dnsRecords[1].value).toBe(HOSTS.bounceDomain);
    expect(JSON.stringify(view.dnsRecords)).not.toContain('private');
  });

  it('refuses a name that is not a domain with a 422 on name', async () => {
    const { service, repository } = setup();
    for (const name of [
      'localhost',
      'example.123',
      'a b.com',
      '-bad.example.com',
      'x@example.com',
    ]) {
      await expect(service.create(ORG, { name })).rejects.toMatchObject({
        code: 'E_VALIDATION_ERROR',
        errors: [expect.objectContaining({ field: 'name' })],
      });
    }
    expect(repository.count).not.toHaveBeenCalled();
  });

  it('refuses a domain over the limit with 409 before making a key', async () => {
    const { service, keys, repository } = setup({ existing: [3] });
    await expect(service.create(ORG, { name: 'example.com' })).rejects.toMatchObject({
      code: 'E_BUSINESS_RULE_VIOLATION',
      message: 'Sending domain limit reached',
    });
    expect(repository.count).toHaveBeenCalledWith(ORG);
    expect(keys.generate).not.toHaveBeenCalled();
    const own = setup({ existing: [3, 3], maxSendingDomains: 4 });
    await expect(own.service.create(ORG, { name: 'example.com' })).resolves.toBeDefined();
  });

  it('counts again under the lock: a concurrent creation that reached the limit wins', async () => {
    const { service, repository, em } = setup({ existing: [2, 3] });
    await expect(service.create(ORG, { name: 'example.com' })).rejects.toMatchObject({
      code: 'E_BUSINESS_RULE_VIOLATION',
      message: 'Sending domain limit reached',
    });
    expect(repository.lockCreations).toHaveBeenCalledWith(ORG, em);
    expect(repository.count).toHaveBeenLastCalledWith(ORG, em);
    expect(repository.insert).not.toHaveBeenCalled();
  });

  it('refuses a name the organization already has with 409', async () => {
    const { service, repository } = setup();
    repository.insert.mockResolvedValueOnce(null);
    await expect(service.create(ORG, { name: 'example.com' })).rejects.toMatchObject({
      code: 'E_BUSINESS_RULE_VIOLATION',
      message: 'A sending domain with this name already exists',
    });
  });
});

describe('SendingDomainService reads and removal', () => {
  it('answers 404 for a domain it cannot see', async () => {
    const { service, repository } = setup({ stored: null });
    await expect(service.get(ORG, ID)).rejects.toMatchObject({ code: 'E_ROW_NOT_FOUND' });
    await expect(service.verify(ORG, ID)).rejects.toMatchObject({ code: 'E_ROW_NOT_FOUND' });
    expect(repository.get).toHaveBeenCalledWith(ORG, ID);
    repository.remove.mockResolvedValueOnce(false);
    await expect(service.remove(ORG, ID)).rejects.toMatchObject({ code: 'E_ROW_NOT_FOUND' });
    expect(repository.remove).toHaveBeenCalledWith(ORG, ID);
  });

  it('shows each record with its last check', async () => {
    const checkedAt = '2030-05-31T00:00:00.000Z';
    const { service } = setup({
      stored: domain({ recordChecks: { dkim: { status: 'verified', checkedAt } } }),
    });
    const view = await service.get(ORG, ID);
    expect(view.dnsRecords[0]).toMatchObject({
      purpose: 'dkim',
      status: 'verified',
      lastCheckedAt: new Date(checkedAt),
    });
    expect(view.dnsRecords[1]).toMatchObject({ status: 'pending', lastCheckedAt: null });
  });
});

describe('SendingDomainService.verify', () => {
  it('verifies a domain whose required records match, and checks it daily after', async () => {
    const { service, repository } = setup();
    const view = await service.verify(ORG, ID);
    const [org, id, outcome, at] = repository.recordCheck.mock.calls[0];
    expect([org, id, at]).toEqual([ORG, ID, NOW]);
    expect(outcome).toMatchObject({
      status: 'verified',
      verifiedAt: NOW,
      nextCheckAt: new Date(NOW.getTime() + VERIFIED_RECHECK_MS),
    });
    expect(view.domain.status).toBe('verified');
    expect(view.dnsRecords.map((r) => r.status)).toEqual([
      'verified',
      'verified',
      'verified',
      'verified',
    ]);
  });

  it('keeps a domain pending with a new window while a required record is missing', async () => {
    const zone = publishedZone();
    zone.delete('bounces.example.com');
    const { service, repository } = setup({ zone });
    const view = await service.verify(ORG, ID);
    expect(repository.recordCheck.mock.calls[0][2]).toMatchObject({
      status: 'pending',
      checkUntil: new Date(NOW.getTime() + CHECK_WINDOW_MS),
      nextCheckAt: new Date(NOW.getTime() + RECHECK_MS),
    });
    expect(view.dnsRecords.map((r) => r.status)).toEqual([
      'verified',
      'failed',
      'verified',
      'verified',
    ]);
  });

  it('refuses with 409 a name another organization holds verified, without looking it up', async () => {
    const { service, repository, dns } = setup({ elsewhere: [true] });
    await expect(service.verify(ORG, ID)).rejects.toMatchObject({
      code: 'E_BUSINESS_RULE_VIOLATION',
      message: 'This domain is verified by another organization',
    });
    expect(repository.verifiedElsewhere).toHaveBeenCalledWith(ORG, 'example.com');
    expect(dns.resolveTxt).not.toHaveBeenCalled();
    expect(repository.recordCheck).not.toHaveBeenCalled();
  });

  it('does not verify the name when another organization verified it during the lookups', async () => {
    const { service, repository } = setup({ elsewhere: [false, true] });
    const view = await service.verify(ORG, ID);
    const outcome = repository.recordCheck.mock.calls[0][2];
    expect(outcome.status).toBe('pending');
    // What DNS answered is still shown.
    expect(outcome.recordChecks.dkim?.status).toBe('verified');
    expect(view.domain.status).toBe('pending');
  });

  it('answers 409 when the unique name lost the race at the write, and 404 when the domain is gone', async () => {
    const taken = setup();
    taken.repository.recordCheck.mockResolvedValueOnce('taken');
    await expect(taken.service.verify(ORG, ID)).rejects.toMatchObject({
      code: 'E_BUSINESS_RULE_VIOLATION',
    });
    const gone = setup();
    gone.repository.recordCheck.mockResolvedValueOnce(null);
    await expect(gone.service.verify(ORG, ID)).rejects.toMatchObject({ code: 'E_ROW_NOT_FOUND' });
  });
});

describe('SendingDomainService.checkDue', () => {
  it('checks claimed domains batch after batch until a batch is short', async () => {
    const { service, repository, sweeper } = setup();
    const batch = (n: number, from: number) =>
      Array.from({ length: n }, (_, i) => domain({ id: `d${from + i}` }));
    sweeper.claimDue.mockResolvedValueOnce(batch(50, 0)).mockResolvedValueOnce(batch(7, 50));
    await expect(service.checkDue()).resolves.toBe(57);
    expect(sweeper.claimDue).toHaveBeenCalledTimes(2);
    expect(sweeper.claimDue).toHaveBeenCalledWith(NOW, 50, 5 * 60_000);
    expect(repository.recordCheck).toHaveBeenCalledTimes(57);
    // Each check is stored under the domain's own organization.
    expect(repository.recordCheck.mock.calls.every((c) => c[0] === ORG)).toBe(true);
  });

  it('goes on past a domain whose check fails', async () => {
    const { service, repository, sweeper } = setup();
    sweeper.claimDue.mockResolvedValueOnce([domain({ id: 'a' }), domain({ id: 'b' })]);
    repository.recordCheck.mockRejectedValueOnce(new Error('connection lost'));
    await expect(service.checkDue()).resolves.toBe(2);
    expect(repository.recordCheck).toHaveBeenCalledTimes(2);
  });
});
