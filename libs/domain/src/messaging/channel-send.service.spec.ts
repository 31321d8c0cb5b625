// The send path beyond email: `to` names a contact or an address (422 naming the field otherwise),
// a raw address is checked in its channel's format, a contact needs a record of the channel, the
// references must be the organization's (404); then admitted, committed, queued.
import { decodeTime } from 'ulid';
import type { ProviderAccounts } from '../channels/provider-accounts';
import { Clock } from '../common/clock';
import { asOrgId } from '../common/org-id';
import {
  NotFoundError,
  SubscriptionRequiredError,
  ValidationFailedError,
} from '../errors/domain-errors';
import type { ChannelAddress, ChannelAddresses } from './channel-addresses.repository';
import { ChannelSendService } from './channel-send.service';
import type { EmailDispatcher } from './email-dispatcher';
import type { MessageRepository } from './message.repository';
import type { MessageService } from './message.service';
import type { NewChannelMessage } from './message.types';
import type { SendService } from './send.service';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const CONTACT = '00000000-0000-4000-8000-0000000000d1';
const CAMPAIGN = '00000000-0000-4000-8000-0000000000c1';
const ACCOUNT = '00000000-0000-4000-8000-0000000000a1';
const NOW = new Date('2031-05-01T12:00:00.000Z');

class FixedClock extends Clock {
  now(): Date {
    return new Date(NOW.getTime());
  }
}

function setup(
  opts: {
    settings?: Record<string, unknown>;
    records?: Record<string, ChannelAddress>;
    known?: ChannelAddress | null;
    foreign?: 'campaign' | 'contact' | null;
    admitError?: Error;
  } = {},
) {
  const steps: string[] = [];
  const created: NewChannelMessage[] = [];
  const sender = {
    admit: jest.fn(async (id: string) => {
      steps.push(`admit ${id}`);
      if (opts.admitError) throw opts.admitError;
    }),
  };
  const accounts = {
    choose: jest.fn(async (id: string) => {
      steps.push(`choose ${id}`);
      return { id: ACCOUNT, name: 'Main account', settings: opts.settings ?? {} };
    }),
  };
  const addresses = {
    bestOf: jest.fn(async (id: string, channel: string) => {
      steps.push(`record ${id}`);
      return opts.records?.[channel] ?? null;
    }),
    byAddress: jest.fn(async (id: string) => {
      steps.push(`known ${id}`);
      return opts.known ?? null;
    }),
  };
  const references = {
    foreignReference: jest.fn(async (id: string) => {
      steps.push(`references ${id}`);
      return opts.foreign ?? null;
    }),
  };
  const messages = {
    create: jest.fn(async (m: NewChannelMessage) => {
      steps.push(`create ${m.organizationId}`);
      created.push(m);
      return 'row-1';
    }),
  };
  const dispatcher = {
    enqueueNew: jest.fn(async (id: string, row: string) => {
      steps.push(`enqueue ${id} ${row}`);
      return true;
    }),
  };
  const service = new ChannelSendService(
    sender as unknown as SendService,
    accounts as unknown as ProviderAccounts,
    addresses as unknown as ChannelAddresses,
    references as unknown as MessageRepository,
    messages as unknown as MessageService,
    dispatcher as unknown as EmailDispatcher,
    new FixedClock(),
  );
  return { service, steps, created, sender, accounts, addresses, references };
}

/** The 422's field errors, or a failure when the call did not answer a 422. */
async function fieldErrors(call: Promise<unknown>) {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ValidationFailedError);
  return (err as ValidationFailedError).errors.map((e) => [e.field, e.rule]);
}

describe('ChannelSendService: where a message goes', () => {
  it.each([
    ['both', { contactId: CONTACT, phoneNumber: '+14155550100' }],
    ['neither', {}],
  ])('refuses a `to` that names %s with 422 naming `to`', async (_, to) => {
    const { service, steps } = setup();
    expect(await fieldErrors(service.sendSms(ORG, { to, content: { text: 'Hi' } }))).toEqual([
      ['to', 'required'],
    ]);
    expect(steps).toEqual([]);
  });

  it.each([
    ['sms', 'to.phoneNumber', 'sendSms', { phoneNumber: '12' }],
    ['whatsapp', 'to.phoneNumber', 'sendWhatsapp', { phoneNumber: 'call me' }],
    ['telegram', 'to.chatId', 'sendTelegram', { chatId: '@someone' }],
    ['imessage', 'to.appleId', 'sendImessage', { appleId: 'not-an-apple-id' }],
  ] as const)('refuses a raw %s address out of format with 422 naming %s', async (...c) => {
    const [, field, method, to] = c;
    const { service, created } = setup();
    const input = { to, content: { text: 'Hi' } };
    const send = (service[method] as (o: string, i: unknown) => Promise<unknown>).bind(service);
    expect(await fieldErrors(send(ORG, input))).toEqual([[field, 'type']]);
    expect(created).toEqual([]);
  });

  it('stores a raw phone number in E.164 and an Apple ID e-mail address lower-cased', async () => {
    const { service, created } = setup();
    await service.sendSms(ORG, {
      to: { phoneNumber: '+1 (415) 555-0100' },
      content: { text: 'a' },
    });
    await service.sendImessage(ORG, {
      to: { appleId: ' Someone@iCloud.example ' },
      content: { text: 'b' },
    });
    await service.sendTelegram(ORG, { to: { chatId: ' -100123 ' }, content: { text: 'c' } });
    expect(created.map((m) => m.recipients)).toEqual([
      [{ kind: 'to', email: '+14155550100' }],
      [{ kind: 'to', email: 'someone@icloud.example' }],
      [{ kind: 'to', email: '-100123' }],
    ]);
  });

  it("sends to the contact's record of the channel, and refuses a contact without one", async () => {
    const record = { address: '+14155550199', status: 'active', isPrimary: true };
    const { service, created, addresses } = setup({ records: { sms: record } });
    await service.sendSms(ORG, { to: { contactId: CONTACT }, content: { text: 'Hi' } });
    expect(addresses.bestOf).toHaveBeenCalledWith(ORG, 'sms', CONTACT);
    expect(created[0]).toMatchObject({
      contactId: CONTACT,
      recipients: [{ kind: 'to', email: '+14155550199' }],
    });
    expect(
      await fieldErrors(
        service.sendWhatsapp(ORG, { to: { contactId: CONTACT }, content: { text: 'Hi' } }),
      ),
    ).toEqual([['to.contactId', 'type']]);
  });

  it.each([
    ['campaign', 'Campaign not found'],
    ['contact', 'Contact not found'],
  ] as const)("answers 404 for another organization's %s, and sends nothing", async (kind, msg) => {
    const { service, created, references } = setup({ foreign: kind });
    const err = await service
      .sendSms(ORG, { to: { contactId: CONTACT }, campaignId: CAMPAIGN, content: { text: 'Hi' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as Error).message).toBe(msg);
    expect(references.foreignReference).toHaveBeenCalledWith(ORG, {
      campaignId: CAMPAIGN,
      contactId: CONTACT,
    });
    expect(created).toEqual([]);
  });
});

describe('ChannelSendService: content rules', () => {
  it('refuses a WhatsApp message with neither text nor template (422 content.text)', async () => {
    const { service, steps } = setup();
    expect(
      await fieldErrors(
        service.sendWhatsapp(ORG, { to: { phoneNumber: '+14155550100' }, content: {} }),
      ),
    ).toEqual([['content.text', 'required']]);
    expect(steps).toEqual([]);
  });

  it('refuses a push with neither title nor body (422 content.body)', async () => {
    const { service } = setup();
    expect(
      await fieldErrors(
        service.sendPush(ORG, { to: { deviceToken: 'tok', platform: 'ios' }, content: {} }),
      ),
    ).toEqual([['content.body', 'required']]);
  });

  it("takes a raw push token's platform from the request, else from the records, else 422", async () => {
    const unknown = setup();
    expect(
      await fieldErrors(
        unknown.service.sendPush(ORG, { to: { deviceToken: 'tok' }, content: { body: 'Hi' } }),
      ),
    ).toEqual([['to.platform', 'required']]);

    const known = setup({
      known: { address: 'tok', status: 'active', isPrimary: true, platform: 'android' },
    });
    await known.service.sendPush(ORG, { to: { deviceToken: ' tok ' }, content: { body: 'Hi' } });
    expect(known.addresses.byAddress).toHaveBeenCalledWith(ORG, 'push', 'tok');
    expect(known.accounts.choose).toHaveBeenCalledWith(ORG, 'push', undefined, 'android');
    expect(known.created[0]).toMatchObject({
      recipients: [{ kind: 'to', email: 'tok' }],
      content: { kind: 'push', body: 'Hi', platform: 'android' },
    });
  });
});

describe('ChannelSendService: the commit', () => {
  it('admits one request and one recipient, commits, then queues, all for the organization', async () => {
    const { service, steps, created, sender, accounts } = setup({
      settings: { from: '+14155550000' },
    });
    const out = await service.sendSms(
      ORG,
      {
        to: { phoneNumber: '+14155550100' },
        providerId: ACCOUNT,
        campaignId: CAMPAIGN,
        tags: ['spring'],
        content: { text: 'Hi' },
        track: { clicks: true },
      },
      'campaign',
    );
    expect(steps).toEqual([
      `references ${ORG}`,
      `choose ${ORG}`,
      `admit ${ORG}`,
      `create ${ORG}`,
      `enqueue ${ORG} row-1`,
    ]);
    expect(accounts.choose).toHaveBeenCalledWith(ORG, 'sms', ACCOUNT);
    expect(sender.admit).toHaveBeenCalledWith(ORG, { requests: 1, recipients: 1 });
    const m = created[0];
    expect(out).toEqual({ jobId: m.jobId, channel: 'sms', status: 'queued' });
    expect(m).toMatchObject({
      channel: 'sms',
      providerId: ACCOUNT,
      senderAddress: '+14155550000',
      source: 'campaign',
      campaignId: CAMPAIGN,
      tags: ['spring'],
      trackOpens: false,
      trackClicks: true,
      content: { kind: 'sms', text: 'Hi' },
      createdAt: NOW,
    });
    const id = m.jobId.slice('job_'.length);
    expect(m.messageId).toBe(`<${id}@sms>`);
    expect(decodeTime(id)).toBe(NOW.getTime());
  });

  it("names the sender after the account's settings, else the account", async () => {
    const service = setup({ settings: { messagingServiceSid: 'MG123' } });
    await service.service.sendSms(ORG, {
      to: { phoneNumber: '+14155550100' },
      content: { text: 'a' },
    });
    const bot = setup({ settings: { botUsername: 'acme_bot' } });
    await bot.service.sendTelegram(ORG, { to: { chatId: '42' }, content: { text: 'a' } });
    const plain = setup();
    await plain.service.sendImessage(ORG, {
      to: { appleId: '+14155550100' },
      content: { text: 'a' },
    });
    expect(
      [service, bot, plain].map((s) => [s.created[0].senderAddress, s.created[0].trackClicks]),
    ).toEqual([
      ['MG123', false],
      ['acme_bot', false],
      ['Main account', false],
    ]);
  });

  it('commits nothing when the organization is not admitted', async () => {
    const { service, created, steps } = setup({ admitError: new SubscriptionRequiredError() });
    await expect(
      service.sendSms(ORG, { to: { phoneNumber: '+14155550100' }, content: { text: 'a' } }),
    ).rejects.toBeInstanceOf(SubscriptionRequiredError);
    expect(created).toEqual([]);
    expect(steps).not.toContain(`enqueue ${ORG} row-1`);
  });
});
