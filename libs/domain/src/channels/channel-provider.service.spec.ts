// Provider accounts (§17) with a fake repository, fake adapters and a fake target check: the
// field rules at the service, the one default per channel, and the callback registration
// (channel-provider-health.spec.ts covers send outcomes and the test send).
import { Logger } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from '../common/clock';
import { asOrgId } from '../common/org-id';
import type { AppConfig } from '../config/app-config';
import { TargetNotAllowedError } from '../dns/target';
import type {
  ChannelProviderRepository,
  NewProviderAccount,
  ProviderAccountChange,
  ProviderAccountRecord,
} from './channel-provider.repository';
import { ChannelProviderService, NewProviderInput } from './channel-provider.service';
import type { ProviderAccount, ProviderChannel } from './provider-adapter';
import { ProviderHttp, ProviderUnreachableError } from './provider-http';
import type { ProviderRegistry } from './provider-registry';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const ID = '00000000-0000-4000-8000-0000000000a1';
const NOW = new Date('2030-06-01T12:00:00Z');
const BASE_URL = 'https://api.example.com';

const TWILIO_CREDENTIALS = { accountSid: `AC${'0'.repeat(32)}`, authToken: 'token' };
const TWILIO_SETTINGS = { from: '+14155550100' };
const TELEGRAM_CREDENTIALS = { botToken: `123456:${'A'.repeat(35)}` };
const TELEGRAM_SETTINGS = { botUsername: 'acme_bot' };

function record(fields: Partial<ProviderAccountRecord> = {}): ProviderAccountRecord {
  return {
    id: ID,
    organizationId: ORG,
    channel: 'sms',
    provider: 'twilio',
    name: 'Twilio',
    settings: TWILIO_SETTINGS,
    status: 'active',
    consecutiveAuthFailures: 0,
    isDefault: true,
    maxPerSecond: 1,
    createdAt: NOW,
    updatedAt: NOW,
    ...fields,
  };
}

interface Options {
  stored?: ProviderAccountRecord | null;
  hasDefault?: boolean;
  allowPrivate?: boolean;
  /** Hosts the target check refuses as private. */
  privateHosts?: string[];
  register?: (account: ProviderAccount, url: string) => Promise<void>;
}

function setup(opts: Options = {}) {
  const em = { name: 'transaction' } as unknown as EntityManager;
  const ds = {
    transaction: jest.fn((work: (em: EntityManager) => Promise<unknown>) => work(em)),
  } as unknown as DataSource;
  const order: string[] = [];
  const stored = opts.stored === undefined ? record() : opts.stored;
  const repository = {
    lockChannel: jest.fn(async (_org: string, _channel: ProviderChannel, _em: EntityManager) => {
      order.push('lock');
    }),
    hasDefault: jest.fn(async (_org: string, _channel: ProviderChannel, _em?: EntityManager) => {
      order.push('hasDefault');
      return opts.hasDefault ?? false;
    }),
    clearDefault: jest.fn(async (_org: string, _channel: ProviderChannel, _em: EntityManager) => {
      order.push('clearDefault');
    }),
    insert: jest.fn(
      async (_org: string, account: NewProviderAccount, _now: Date, _em: EntityManager) => {
        order.push('insert');
        const { credentials: _c, ...rest } = account;
        return record({ ...rest, id: ID });
      },
    ),
    list: jest.fn(async () => ({ items: [record()], total: 1 })),
    get: jest.fn(async (_org: string, _id: string) => stored),
    credentialsOf: jest.fn(
      async (
        _org: string,
        _id: string,
        _em?: EntityManager,
      ): Promise<Record<string, unknown> | null> =>
        stored?.provider === 'telegram-bot' ? TELEGRAM_CREDENTIALS : TWILIO_CREDENTIALS,
    ),
    update: jest.fn(
      async (
        _org: string,
        _id: string,
        change: ProviderAccountChange,
        _now: Date,
        _em: EntityManager,
      ) => {
        const { credentials: _c, ...rest } = change;
        return stored ? { ...stored, ...rest } : null;
      },
    ),
    remove: jest.fn(async (_org: string, _id: string, _em?: EntityManager) => stored),
    promoteOldest: jest.fn(async () => undefined),
  };
  const adapter = { register: opts.register ? jest.fn(opts.register) : undefined };
  const registry = {
    adapterFor: jest.fn((_channel: ProviderChannel, _provider: string) => adapter),
  };
  const http = {
    target: jest.fn(async (host: string) => {
      if (opts.privateHosts?.includes(host)) throw new TargetNotAllowedError('10.0.0.1', 'private');
      return { address: '93.184.216.34', family: 4 };
    }),
  };
  const clock: Clock = { now: () => NOW };
  const config = {
    publicBaseUrl: BASE_URL,
    webhookAllowPrivateTargets: opts.allowPrivate ?? false,
  } as AppConfig;
  const service = new ChannelProviderService(
    ds,
    repository as unknown as ChannelProviderRepository,
    registry as unknown as ProviderRegistry,
    http as unknown as ProviderHttp,
    clock,
    config,
  );
  return { service, repository, adapter, registry, http, em, order };
}

const twilio = (fields: Partial<NewProviderInput> = {}): NewProviderInput => ({
  channel: 'sms',
  provider: 'twilio',
  name: 'Twilio',
  credentials: TWILIO_CREDENTIALS,
  settings: TWILIO_SETTINGS,
  ...fields,
});

async function fieldsOf(work: Promise<unknown>): Promise<string[]> {
  const err = (await work.catch((e: unknown) => e)) as {
    code: string;
    errors: { field: string }[];
  };
  expect(err.code).toBe('E_VALIDATION_ERROR');
  return err.errors.map((e) => e.field);
}

beforeAll(() => Logger.overrideLogger(false));
afterAll(() => Logger.overrideLogger(true));

describe('ChannelProviderService.create', () => {
  it("makes the channel's first account its default, under the channel's lock", async () => {
    const { service, repository, em, order } = setup({ hasDefault: false });
    const { account, secret } = await service.create(ORG, twilio({ name: '  Main  ' }));
    expect(order).toEqual(['lock', 'hasDefault', 'clearDefault', 'insert']);
    expect(repository.lockChannel).toHaveBeenCalledWith(ORG, 'sms', em);
    expect(repository.insert).toHaveBeenCalledWith(
      ORG,
      {
        channel: 'sms',
        provider: 'twilio',
        name: 'Main',
        settings: TWILIO_SETTINGS,
        credentials: TWILIO_CREDENTIALS,
        isDefault: true,
        maxPerSecond: 1,
      },
      NOW,
      em,
    );
    expect(account).not.toHaveProperty('credentials');
    expect(secret).toBeUndefined();
  });

  it('leaves the default where it is unless asked to move it', async () => {
    const second = setup({ hasDefault: true });
    await second.service.create(ORG, twilio({ maxPerSecond: 7 }));
    expect(second.repository.clearDefault).not.toHaveBeenCalled();
    expect(second.repository.insert).toHaveBeenCalledWith(
      ORG,
      expect.objectContaining({ isDefault: false, maxPerSecond: 7 }),
      NOW,
      expect.anything(),
    );
    const asked = setup({ hasDefault: true });
    await asked.service.create(ORG, twilio({ isDefault: true }));
    expect(asked.repository.clearDefault).toHaveBeenCalledWith(ORG, 'sms', expect.anything());
    expect(asked.repository.insert).toHaveBeenCalledWith(
      ORG,
      expect.objectContaining({ isDefault: true }),
      NOW,
      expect.anything(),
    );
  });

  it('refuses a provider of another channel, a bad name and bad fields with 422s naming them', async () => {
    const { service, repository } = setup();
    expect(await fieldsOf(service.create(ORG, twilio({ channel: 'push' })))).toEqual(['provider']);
    expect(await fieldsOf(service.create(ORG, twilio({ name: '   ' })))).toEqual(['name']);
    expect(await fieldsOf(service.create(ORG, twilio({ name: 'x'.repeat(101) })))).toEqual([
      'name',
    ]);
    expect(
      await fieldsOf(
        service.create(
          ORG,
          twilio({ credentials: { accountSid: 'nope' }, settings: { from: '+14155550100', x: 1 } }),
        ),
      ),
    ).toEqual(['credentials.accountSid', 'credentials.authToken', 'settings.x']);
    expect(repository.insert).not.toHaveBeenCalled();
  });

  it('refuses a URL setting that reaches a private address, unless private targets are allowed', async () => {
    const settings = { ...TWILIO_SETTINGS, apiBaseUrl: 'https://inside.example' };
    const refused = setup({ privateHosts: ['inside.example'] });
    const err = await refused.service.create(ORG, twilio({ settings })).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'E_VALIDATION_ERROR',
      errors: [{ field: 'settings.apiBaseUrl', rule: 'url', message: 'Please enter a valid URL' }],
    });
    expect(refused.http.target).toHaveBeenCalledWith('inside.example');
    expect(refused.repository.insert).not.toHaveBeenCalled();
    const allowed = setup({ privateHosts: ['inside.example'], allowPrivate: true });
    await expect(allowed.service.create(ORG, twilio({ settings }))).resolves.toHaveProperty(
      'account',
    );
    expect(allowed.http.target).not.toHaveBeenCalled();
  });

  it('answers the http provider its generated secret once, and stores it', async () => {
    const { service, repository } = setup();
    const { secret } = await service.create(ORG, {
      channel: 'push',
      provider: 'http',
      name: 'Gateway',
      credentials: {},
      settings: { url: 'https://gateway.example.com/send' },
    });
    expect(secret).toMatch(/^whsec_/);
    expect(repository.insert).toHaveBeenCalledWith(
      ORG,
      expect.objectContaining({ credentials: { secret }, maxPerSecond: 10 }),
      NOW,
      expect.anything(),
    );
  });

  it("registers the account's callback URL with a provider that must be told", async () => {
    const register = jest.fn(async () => undefined);
    const { service } = setup({ register });
    await service.create(ORG, {
      channel: 'telegram',
      provider: 'telegram-bot',
      name: 'Bot',
      credentials: TELEGRAM_CREDENTIALS,
      settings: TELEGRAM_SETTINGS,
    });
    expect(register).toHaveBeenCalledWith(
      {
        id: ID,
        organizationId: ORG,
        channel: 'telegram',
        provider: 'telegram-bot',
        settings: TELEGRAM_SETTINGS,
        credentials: TELEGRAM_CREDENTIALS,
      },
      `${BASE_URL}/channels/callbacks/${ID}`,
    );
  });

  it('answers 422 on credentials when the provider refuses the registration, 503 when it is unreachable', async () => {
    const telegram: NewProviderInput = {
      channel: 'telegram',
      provider: 'telegram-bot',
      name: 'Bot',
      credentials: TELEGRAM_CREDENTIALS,
      settings: TELEGRAM_SETTINGS,
    };
    const refused = setup({
      register: async () => {
        throw new Error('Unauthorized');
      },
    });
    expect(await fieldsOf(refused.service.create(ORG, telegram))).toEqual(['credentials']);
    const unreachable = setup({
      register: async () => {
        throw new ProviderUnreachableError('timeout');
      },
    });
    await expect(unreachable.service.create(ORG, telegram)).rejects.toMatchObject({
      code: 'E_SERVICE_UNAVAILABLE',
    });
  });
});

describe('ChannelProviderService.update and remove', () => {
  it('answers 404 for an account it cannot see, and refuses isDefault false with a 422', async () => {
    const missing = setup({ stored: null });
    await expect(missing.service.update(ORG, ID, { name: 'x' })).rejects.toMatchObject({
      code: 'E_ROW_NOT_FOUND',
    });
    expect(missing.repository.get).toHaveBeenCalledWith(ORG, ID);
    const { service, repository } = setup();
    expect(await fieldsOf(service.update(ORG, ID, { isDefault: false }))).toEqual(['isDefault']);
    expect(repository.update).not.toHaveBeenCalled();
  });

  it('moves the default here in one transaction', async () => {
    const { service, repository, em, order } = setup({ stored: record({ isDefault: false }) });
    await service.update(ORG, ID, { isDefault: true });
    expect(order).toEqual(['lock', 'clearDefault']);
    expect(repository.update).toHaveBeenCalledWith(
      ORG,
      ID,
      expect.objectContaining({ isDefault: true }),
      NOW,
      em,
    );
  });

  it('checks new settings against the stored credentials, and stores only what changed', async () => {
    const { service, repository } = setup();
    await service.update(ORG, ID, { settings: { from: '+14155550199' } });
    expect(repository.credentialsOf).toHaveBeenCalledWith(ORG, ID);
    const change = repository.update.mock.calls[0][2];
    expect(change.settings).toEqual({ from: '+14155550199' });
    expect(change.credentials).toBeUndefined();
    expect(await fieldsOf(service.update(ORG, ID, { settings: { from: 'nope' } }))).toEqual([
      'settings.from',
    ]);
  });

  it('answers 404 when the account is gone by the time it is written', async () => {
    const { service, repository } = setup();
    repository.update.mockResolvedValueOnce(null);
    await expect(service.update(ORG, ID, { name: 'New' })).rejects.toMatchObject({
      code: 'E_ROW_NOT_FOUND',
    });
  });

  it("hands a removed default's role to the oldest other account of the channel", async () => {
    const { service, repository, em } = setup({ stored: record({ isDefault: true }) });
    await service.remove(ORG, ID);
    expect(repository.remove).toHaveBeenCalledWith(ORG, ID, em);
    expect(repository.promoteOldest).toHaveBeenCalledWith(ORG, 'sms', em);
    const plain = setup({ stored: record({ isDefault: false }) });
    await plain.service.remove(ORG, ID);
    expect(plain.repository.promoteOldest).not.toHaveBeenCalled();
    const gone = setup();
    gone.repository.remove.mockResolvedValueOnce(null);
    await expect(gone.service.remove(ORG, ID)).rejects.toMatchObject({ code: 'E_ROW_NOT_FOUND' });
  });
});
