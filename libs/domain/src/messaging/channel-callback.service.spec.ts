// Provider callbacks: nothing changes unless the account exists (404) and the signature verifies
// (403); statuses are recorded for the account's organization (a read also as an `opened`
// engagement), STOP and START move an SMS number's consent, a Telegram deep link links its chat,
// a block marks the record, a WhatsApp message opens its number's window.
import { Logger } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import type { ProviderAccounts } from '../channels/provider-accounts';
import type {
  InboundProviderMessage,
  ProviderAdapter,
  ProviderCallback,
  StatusUpdate,
} from '../channels/provider-adapter';
import type { ProviderRegistry } from '../channels/provider-registry';
import type { TelegramLinkTokens } from '../channels/telegram-link-token';
import { Clock } from '../common/clock';
import { asOrgId } from '../common/org-id';
import type { ChannelFeedbackService } from '../contacts/channel-feedback.service';
import { ForbiddenError, NotFoundError } from '../errors/domain-errors';
import type { Events } from '../events/events.service';
import { ChannelCallbackService, consentKeyword } from './channel-callback.service';
import type { EngagementStore } from './engagement/engagement.store';
import type { MessageService } from './message.service';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const PROVIDER = '00000000-0000-4000-8000-0000000000a1';
const NOW = new Date('2031-05-01T12:00:00.000Z');

class FixedClock extends Clock {
  now(): Date {
    return new Date(NOW.getTime());
  }
}

const callback: ProviderCallback = {
  url: `https://mail.acme.test/channels/callbacks/${PROVIDER}`,
  method: 'POST',
  headers: {},
  rawBody: Buffer.from('{}'),
};

function setup(
  opts: {
    channel?: 'sms' | 'whatsapp' | 'telegram';
    known?: boolean;
    adapter?: Partial<ProviderAdapter> | null;
    signed?: boolean;
    statuses?: StatusUpdate[];
    inbound?: InboundProviderMessage[];
    recorded?: boolean;
    linkedRecord?: string | null;
  } = {},
) {
  const channel = opts.channel ?? 'sms';
  const calls: [string, ...unknown[]][] = [];
  const em = {} as EntityManager;
  const ds = { transaction: (work: (e: EntityManager) => Promise<unknown>) => work(em) };
  const account = { id: PROVIDER, channel, credentials: {}, settings: {} };
  const accounts = {
    organizationOf: jest.fn(async () => (opts.known === false ? null : ORG)),
    forSending: jest.fn(async () => ({
      record: { channel, provider: 'fake' },
      account,
    })),
  };
  const adapter =
    opts.adapter === null
      ? null
      : {
          verifySignature: jest.fn(() => opts.signed !== false),
          parseStatus: jest.fn(() => opts.statuses ?? []),
          parseInbound: jest.fn(() => opts.inbound ?? []),
          ...opts.adapter,
        };
  const registry = { adapterFor: jest.fn(() => adapter) };
  const messages = {
    recordStatus: jest.fn(async (org: string, providerId: string, u: StatusUpdate) => {
      calls.push(['recordStatus', org, providerId, u.status]);
      return opts.recorded === false ? null : { messageId: 'm1', recipientIdx: 2 };
    }),
  };
  const count =
    (name: string) =>
    async (_e: EntityManager, org: string, ...rest: unknown[]) => {
      calls.push([name, org, ...rest]);
      return 1;
    };
  const records = {
    optOut: jest.fn(count('optOut')),
    optIn: jest.fn(count('optIn')),
    seen: jest.fn(count('seen')),
    apply: jest.fn(count('apply')),
    linkTelegramChat: jest.fn(count('linkTelegramChat')),
  };
  const engagement = {
    record: jest.fn(async (org: string, e: unknown) => {
      calls.push(['engagement', org, e]);
    }),
  };
  const linkTokens = {
    verify: jest.fn((token: string) =>
      token === 'goodtoken' ? (opts.linkedRecord ?? 'record-1') : null,
    ),
  };
  const events = { wake: jest.fn(() => calls.push(['wake'])) };
  const service = new ChannelCallbackService(
    ds as unknown as DataSource,
    accounts as unknown as ProviderAccounts,
    registry as unknown as ProviderRegistry,
    messages as unknown as MessageService,
    records as unknown as ChannelFeedbackService,
    engagement as unknown as EngagementStore,
    linkTokens as unknown as TelegramLinkTokens,
    events as unknown as Events,
    new FixedClock(),
  );
  return { service, calls, accounts, adapter, records, messages, linkTokens };
}

beforeAll(() => Logger.overrideLogger(false));

describe('consentKeyword', () => {
  it('matches the STOP and START words whole, in any case, trimmed', () => {
    expect(['stop', ' Unsubscribe ', 'QUIT', 'stopall'].map(consentKeyword)).toEqual([
      'stop',
      'stop',
      'stop',
      'stop',
    ]);
    expect(['start', 'UNSTOP\n'].map(consentKeyword)).toEqual(['start', 'start']);
    expect(['please stop', 'STOP!', 'go', ''].map(consentKeyword)).toEqual([
      null,
      null,
      null,
      null,
    ]);
  });
});

describe('ChannelCallbackService.receive: who may post', () => {
  it('answers 404 for a provider id that is no account, without reading anything for a non-uuid', async () => {
    const unknown = setup({ known: false });
    await expect(unknown.service.receive(PROVIDER, callback)).rejects.toBeInstanceOf(NotFoundError);
    const garbage = setup();
    await expect(garbage.service.receive('not-a-uuid', callback)).rejects.toBeInstanceOf(
      NotFoundError,
    );
    expect(garbage.accounts.organizationOf).not.toHaveBeenCalled();
  });

  it('answers 404 for an account whose provider has no adapter', async () => {
    const { service } = setup({ adapter: null });
    await expect(service.receive(PROVIDER, callback)).rejects.toMatchObject({
      code: 'E_ROW_NOT_FOUND',
    });
  });

  it('answers 403 and changes nothing when the signature does not verify', async () => {
    const { service, calls, adapter } = setup({
      signed: false,
      statuses: [{ providerMessageId: 'p1', status: 'delivered' }],
      inbound: [
        { kind: 'message', providerMessageId: 'i1', from: '+14155550100', to: '+1', text: 'STOP' },
      ],
    });
    const err = await service.receive(PROVIDER, callback).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ForbiddenError);
    expect((err as ForbiddenError).code).toBe('E_FORBIDDEN');
    expect(adapter!.parseStatus).not.toHaveBeenCalled();
    expect(calls).toEqual([]);
  });
});

describe('ChannelCallbackService.receive: statuses', () => {
  it("records each status for the account's organization, and answers the adapter's reply", async () => {
    const { service, calls, accounts } = setup({
      statuses: [
        { providerMessageId: 'p1', status: 'delivered' },
        { providerMessageId: 'p2', status: 'failed' },
      ],
      adapter: { callbackReply: { contentType: 'text/xml', body: '<Response/>' } },
    });
    expect(await service.receive(PROVIDER, callback)).toEqual({
      contentType: 'text/xml',
      body: '<Response/>',
    });
    expect(accounts.forSending).toHaveBeenCalledWith(ORG, PROVIDER);
    expect(calls).toEqual([
      ['recordStatus', ORG, PROVIDER, 'delivered'],
      ['recordStatus', ORG, PROVIDER, 'failed'],
    ]);
  });

  it('records a read receipt also as an opened engagement of the recipient', async () => {
    const { service, calls } = setup({ statuses: [{ providerMessageId: 'p1', status: 'read' }] });
    expect(await service.receive(PROVIDER, callback)).toEqual({
      contentType: 'application/json',
      body: '{}',
    });
    expect(calls).toContainEqual([
      'engagement',
      ORG,
      { messageId: 'm1', recipientIndex: 2, type: 'opened', occurredAt: NOW },
    ]);
  });

  it('records no engagement for a read receipt that changed nothing', async () => {
    const { service, calls } = setup({
      statuses: [{ providerMessageId: 'p1', status: 'read' }],
      recorded: false,
    });
    await service.receive(PROVIDER, callback);
    expect(calls.map((c) => c[0])).toEqual(['recordStatus']);
  });
});

describe('ChannelCallbackService.receive: what contacts do', () => {
  const text = (t: string, from = '+1 415 555 0100'): InboundProviderMessage => ({
    kind: 'message',
    providerMessageId: 'i1',
    from,
    to: '+14155550000',
    text: t,
  });

  it("moves an SMS number's consent on STOP and START, and wakes the dispatchers", async () => {
    const { service, calls } = setup({ inbound: [text(' stop '), text('Start')] });
    await service.receive(PROVIDER, callback);
    expect(calls).toEqual([
      ['optOut', ORG, '+14155550100', NOW],
      ['wake'],
      ['optIn', ORG, '+14155550100', NOW],
      ['wake'],
    ]);
  });

  it('ignores an SMS that is no keyword, or from no phone number', async () => {
    const { service, calls } = setup({ inbound: [text('hello'), text('STOP', 'short code')] });
    await service.receive(PROVIDER, callback);
    expect(calls).toEqual([]);
  });

  it("opens a WhatsApp number's window on any message from it", async () => {
    const { service, calls } = setup({ channel: 'whatsapp', inbound: [text('STOP')] });
    await service.receive(PROVIDER, callback);
    expect(calls).toEqual([['seen', ORG, 'whatsapp', '+14155550100', NOW], ['wake']]);
  });

  it("links a Telegram chat that opened the bot's deep link with a valid token", async () => {
    const { service, calls, linkTokens } = setup({
      channel: 'telegram',
      inbound: [text('/start goodtoken', '4242')],
    });
    await service.receive(PROVIDER, callback);
    expect(linkTokens.verify).toHaveBeenCalledWith('goodtoken', PROVIDER);
    expect(calls).toEqual([['linkTelegramChat', ORG, 'record-1', '4242', NOW], ['wake']]);
  });

  it('takes a start with a forged token for a plain message from the chat', async () => {
    const { service, calls } = setup({
      channel: 'telegram',
      inbound: [text('/start forged', '4242')],
    });
    await service.receive(PROVIDER, callback);
    expect(calls).toEqual([['seen', ORG, 'telegram', '4242', NOW, false], ['wake']]);
  });

  it('marks a Telegram record blocked when the person blocks the bot, seen again on unblock', async () => {
    const { service, calls } = setup({
      channel: 'telegram',
      inbound: [
        { kind: 'blocked', from: '4242' },
        { kind: 'unblocked', from: '4242' },
      ],
    });
    await service.receive(PROVIDER, callback);
    expect(calls).toEqual([
      ['apply', ORG, { channel: 'telegram', address: '4242', effect: 'blocked', at: NOW }],
      ['wake'],
      ['seen', ORG, 'telegram', '4242', NOW, true],
      ['wake'],
    ]);
  });
});

describe('ChannelCallbackService.handshake', () => {
  it("answers the adapter's challenge, 403 for a wrong token, 404 without a handshake", async () => {
    const query = new URLSearchParams('hub.challenge=42');
    const ok = setup({ adapter: { handshake: () => '42' } });
    expect(await ok.service.handshake(PROVIDER, query)).toBe('42');
    const wrong = setup({ adapter: { handshake: () => null } });
    await expect(wrong.service.handshake(PROVIDER, query)).rejects.toBeInstanceOf(ForbiddenError);
    const none = setup();
    await expect(none.service.handshake(PROVIDER, query)).rejects.toBeInstanceOf(NotFoundError);
  });
});
