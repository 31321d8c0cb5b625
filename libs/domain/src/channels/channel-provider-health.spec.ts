// A provider account's health and its test send (§17) with a fake repository and a fake adapter:
// refusals of the credentials count toward `failing`, an answer from the provider resets the
// count, and the test send answers the provider's outcome with the account's status after it.
import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { Clock } from '../common/clock';
import { asOrgId } from '../common/org-id';
import type { AppConfig } from '../config/app-config';
import type { ProviderName } from './channel-provider.entity';
import type {
  ChannelProviderRepository,
  ProviderAccountRecord,
} from './channel-provider.repository';
import { AUTH_FAILURES_BEFORE_FAILING, ChannelProviderService } from './channel-provider.service';
import type { ProviderAccount, ProviderMessage, SendOutcome } from './provider-adapter';
import type { ProviderHttp } from './provider-http';
import type { ProviderRegistry } from './provider-registry';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const ID = '00000000-0000-4000-8000-0000000000a1';
const NOW = new Date('2030-06-01T12:00:00Z');
const BASE_URL = 'https://api.example.com';
const TWILIO_CREDENTIALS = { accountSid: `AC${'0'.repeat(32)}`, authToken: 'token' };

function record(fields: Partial<ProviderAccountRecord> = {}): ProviderAccountRecord {
  return {
    id: ID,
    organizationId: ORG,
    channel: 'sms',
    provider: 'twilio',
    name: 'Twilio',
    settings: { from: '+14155550100' },
    status: 'active',
    consecutiveAuthFailures: 0,
    isDefault: true,
    maxPerSecond: 1,
    createdAt: NOW,
    updatedAt: NOW,
    ...fields,
  };
}

function setup(
  opts: { stored?: ProviderAccountRecord; outcome?: SendOutcome; noAdapter?: boolean } = {},
) {
  const repository = {
    get: jest.fn(async (_org: string, _id: string) => opts.stored ?? record()),
    credentialsOf: jest.fn(
      async (_org: string, _id: string): Promise<Record<string, unknown> | null> =>
        TWILIO_CREDENTIALS,
    ),
    recordAuthFailure: jest.fn(async (_org: string, _id: string, _threshold: number, _now: Date) =>
      record({ status: 'failing', consecutiveAuthFailures: 3 }),
    ),
    recordAuthSuccess: jest.fn(async (_org: string, _id: string, _now: Date) => record()),
  };
  const adapter = {
    send: jest.fn(
      async (_account: ProviderAccount, _message: ProviderMessage): Promise<SendOutcome> =>
        opts.outcome ?? { kind: 'accepted', providerMessageId: 'SM1', status: 'sent' },
    ),
  };
  const registry = { adapterFor: jest.fn(() => (opts.noAdapter ? null : adapter)) };
  const clock: Clock = { now: () => NOW };
  const config = { publicBaseUrl: BASE_URL, webhookAllowPrivateTargets: false } as AppConfig;
  const service = new ChannelProviderService(
    {} as DataSource,
    repository as unknown as ChannelProviderRepository,
    registry as unknown as ProviderRegistry,
    {} as ProviderHttp,
    clock,
    config,
  );
  return { service, repository, adapter };
}

beforeAll(() => Logger.overrideLogger(false));
afterAll(() => Logger.overrideLogger(true));

describe('ChannelProviderService.recordOutcome', () => {
  it('counts a refusal of the credentials toward failing, and an answer from the provider resets it', async () => {
    const { service, repository } = setup();
    const failing = await service.recordOutcome(ORG, ID, { kind: 'unauthorized', message: '401' });
    expect(repository.recordAuthFailure).toHaveBeenCalledWith(
      ORG,
      ID,
      AUTH_FAILURES_BEFORE_FAILING,
      NOW,
    );
    expect(failing?.status).toBe('failing');
    await service.recordOutcome(ORG, ID, {
      kind: 'rejected',
      permanent: true,
      code: '21211',
      message: 'invalid number',
    });
    await service.recordOutcome(ORG, ID, {
      kind: 'accepted',
      providerMessageId: 'x',
      status: 'sent',
    });
    expect(repository.recordAuthSuccess).toHaveBeenCalledTimes(2);
    expect(repository.recordAuthSuccess).toHaveBeenCalledWith(ORG, ID, NOW);
  });

  it('says nothing of the credentials for a throttled or unavailable answer', async () => {
    const { service, repository } = setup();
    await expect(
      service.recordOutcome(ORG, ID, { kind: 'throttled', retryAfterMs: 1000 }),
    ).resolves.toBeNull();
    await expect(
      service.recordOutcome(ORG, ID, { kind: 'unavailable', message: '503' }),
    ).resolves.toBeNull();
    expect(repository.recordAuthFailure).not.toHaveBeenCalled();
    expect(repository.recordAuthSuccess).not.toHaveBeenCalled();
  });
});

describe('ChannelProviderService.test', () => {
  it('sends one message through the account and answers the outcome', async () => {
    const { service, adapter } = setup();
    const result = await service.test(ORG, ID, { to: '+1 415 555 0100', text: 'Hello' });
    const [account, message] = adapter.send.mock.calls[0];
    expect(account).toMatchObject({ id: ID, organizationId: ORG, credentials: TWILIO_CREDENTIALS });
    expect(message).toMatchObject({
      to: '+14155550100',
      content: { text: 'Hello' },
      statusCallbackUrl: `${BASE_URL}/channels/callbacks/${ID}`,
    });
    expect(message.reference).toMatch(/^[0-9a-f-]{36}$/);
    expect(result).toEqual({
      outcome: 'accepted',
      providerMessageId: 'SM1',
      status: 'sent',
      code: null,
      message: null,
      retryAfterMs: null,
      providerStatus: 'active',
    });
  });

  it("answers a refusal of the credentials with the account's status after it", async () => {
    const { service } = setup({ outcome: { kind: 'unauthorized', message: 'bad token' } });
    await expect(service.test(ORG, ID, { to: '+14155550100', text: 'Hi' })).resolves.toMatchObject({
      outcome: 'unauthorized',
      message: 'bad token',
      providerStatus: 'failing',
    });
  });

  it('refuses a disabled account or one without an adapter with 409, before sending', async () => {
    const disabled = setup({ stored: record({ status: 'disabled' }) });
    await expect(
      disabled.service.test(ORG, ID, { to: '+14155550100', text: 'Hi' }),
    ).rejects.toMatchObject({
      code: 'E_BUSINESS_RULE_VIOLATION',
      message: 'Provider is disabled',
    });
    expect(disabled.adapter.send).not.toHaveBeenCalled();
    const unsupported = setup({
      noAdapter: true,
      stored: record({ provider: 'blooio' as ProviderName }),
    });
    await expect(
      unsupported.service.test(ORG, ID, { to: '+14155550100', text: 'Hi' }),
    ).rejects.toMatchObject({ code: 'E_BUSINESS_RULE_VIOLATION' });
  });

  it('refuses a message the channel does not take with a 422 naming the field', async () => {
    const { service, adapter } = setup();
    await expect(service.test(ORG, ID, { to: 'not a number', text: 'Hi' })).rejects.toMatchObject({
      code: 'E_VALIDATION_ERROR',
      errors: [expect.objectContaining({ field: 'to' })],
    });
    expect(adapter.send).not.toHaveBeenCalled();
  });

  it('answers 404 when the credentials of the account are gone', async () => {
    const { service, repository } = setup();
    repository.credentialsOf.mockResolvedValueOnce(null);
    await expect(service.account(ORG, ID)).rejects.toMatchObject({ code: 'E_ROW_NOT_FOUND' });
  });
});
