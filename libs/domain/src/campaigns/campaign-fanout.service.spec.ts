// The campaign fan-out on a fixed clock: each claimed recipient goes out through its channel's
// send path once (one with a message already is recorded sent), quiet hours and limits hold it,
// 24 hours after the start it fails instead, and the campaign completes with campaign.sent.
import { Logger } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { asOrgId } from '../common/org-id';
import { configureFieldEncryption, FieldCipher, fieldCipher } from '../crypto/field-encryption';
import {
  NotFoundError,
  RateLimitedError,
  ServiceUnavailableError,
  SubscriptionRequiredError,
} from '../errors/domain-errors';
import type { Events, NewEvent } from '../events/events.service';
import type { ChannelSendService } from '../messaging/channel-send.service';
import type { SendService } from '../messaging/send.service';
import { CampaignFanoutService, FANOUT_BATCH_SIZE } from './campaign-fanout.service';
import type {
  CampaignRepository,
  ClaimedRecipient,
  RecipientOutcome,
  SendingCampaign,
} from './campaign.repository';
import type { CampaignSweeper, DueCampaign } from './campaign.sweeper';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const ORG_B = asOrgId('00000000-0000-4000-8000-000000000002');
const CAMPAIGN = '00000000-0000-4000-8000-0000000000c1';
const NOW = new Date('2031-05-01T12:00:00.000Z');
const at = (ms: number) => new Date(NOW.getTime() + ms);
const HOUR = 3_600_000;

class FixedClock extends Clock {
  now(): Date {
    return new Date(NOW.getTime());
  }
}

const campaign = (extra: Partial<SendingCampaign> = {}): SendingCampaign => ({
  id: CAMPAIGN,
  organizationId: ORG,
  name: 'Spring',
  content: { sms: { text: 'Spring sale' } },
  subject: 'Spring sale',
  html: null,
  text: 'Hi',
  from: 'news@acme.test',
  quietStart: null,
  quietEnd: null,
  startedAt: at(-HOUR),
  ...extra,
});

const row = (contactId: string, extra: Partial<ClaimedRecipient> = {}): ClaimedRecipient => ({
  contactId,
  channel: 'sms',
  timezone: null,
  encryptedEmail: null,
  attempts: 0,
  ...extra,
});

function setup(
  opts: {
    sending?: SendingCampaign | null;
    claimed?: ClaimedRecipient[][];
    already?: Map<string, string>;
    send?: (contactId: string) => Promise<{ jobId: string }>;
    done?: boolean;
    due?: DueCampaign[][];
  } = {},
) {
  const em = {} as EntityManager;
  const steps: string[] = [];
  const recorded: { contactId: string; outcome: RecipientOutcome }[] = [];
  const transactions: number[] = [];
  const ds = {
    transaction: async (work: (e: EntityManager) => Promise<unknown>) => {
      transactions.push(1);
      const out = await work(em);
      steps.push('commit');
      return out;
    },
  };
  const batches = [...(opts.claimed ?? [])];
  const due = [...(opts.due ?? [])];
  const sweeper = { dueCampaigns: jest.fn(async () => due.shift() ?? []) };
  const campaigns = {
    lockSending: jest.fn(async (org: string, _id: string) => {
      steps.push(`lock ${org}`);
      return opts.sending === undefined ? campaign() : opts.sending;
    }),
    claimDue: jest.fn(async (org: string, _id: string, now: Date, limit: number) => {
      steps.push(`claim ${org} ${limit} ${now.toISOString()}`);
      return batches.shift() ?? [];
    }),
    messagesSent: jest.fn(async () => opts.already ?? new Map()),
    recordOutcomes: jest.fn(async (org: string, _id: string, tries: typeof recorded, now: Date) => {
      steps.push(`record ${org} ${now.toISOString()}`);
      recorded.push(...tries);
    }),
    addCounts: jest.fn(async (org: string, _id: string, sent: number, failed: number) => {
      steps.push(`count ${org} ${sent} ${failed}`);
    }),
    completeIfDone: jest.fn(async () =>
      opts.done ? { recipientCount: 3, sentCount: 2, failedCount: 1, unreachableCount: 0 } : null,
    ),
    sentByChannel: jest.fn(async () => ({ sms: { recipients: 3, sent: 2, failed: 1 } })),
  };
  const send = opts.send ?? (async (contactId: string) => ({ jobId: `job_${contactId}` }));
  const sender = {
    send: jest.fn(async (_org: string, input: { contactId: string }) => send(input.contactId)),
  };
  const channelSend = (name: string) =>
    jest.fn(async (org: string, input: { to: { contactId: string } }) => {
      steps.push(`${name} ${org}`);
      return send(input.to.contactId);
    });
  const channels = {
    sendSms: channelSend('sms'),
    sendWhatsapp: channelSend('whatsapp'),
    sendTelegram: channelSend('telegram'),
    sendImessage: channelSend('imessage'),
    sendPush: channelSend('push'),
  };
  const events = {
    emit: jest.fn(async (_e: EntityManager, org: string, list: NewEvent[]) => {
      steps.push(`emit ${org} ${list.map((e) => e.type).join()}`);
    }),
    wake: jest.fn(() => steps.push('wake')),
  };
  const service = new CampaignFanoutService(
    ds as unknown as DataSource,
    campaigns as unknown as CampaignRepository,
    sweeper as unknown as CampaignSweeper,
    sender as unknown as SendService,
    channels as unknown as ChannelSendService,
    events as unknown as Events,
    new FixedClock(),
  );
  return {
    service,
    steps,
    recorded,
    campaigns,
    sweeper,
    sender,
    channels,
    events,
    transactions,
    ds,
  };
}

const outcomeOf = (recorded: { contactId: string; outcome: RecipientOutcome }[], id: string) =>
  recorded.find((r) => r.contactId === id)?.outcome;

beforeAll(() => {
  Logger.overrideLogger(false);
  configureFieldEncryption(new FieldCipher(Buffer.alloc(32, 7)));
});

describe('CampaignFanoutService: one batch', () => {
  it("sends each recipient through its channel's send path for the campaign's organization", async () => {
    const encryptedEmail = fieldCipher().encrypt('pat@example.test');
    const { service, sender, channels, recorded, steps } = setup({
      due: [[{ organizationId: ORG, id: CAMPAIGN }]],
      claimed: [[row('c1'), row('c2', { channel: 'email', encryptedEmail })]],
    });
    expect(await service.runDue()).toEqual({ sent: 2, held: 0, failed: 0, completed: 0 });
    expect(channels.sendSms).toHaveBeenCalledWith(
      ORG,
      { to: { contactId: 'c1' }, campaignId: CAMPAIGN, content: { text: 'Spring sale' } },
      'campaign',
    );
    expect(sender.send).toHaveBeenCalledWith(
      ORG,
      {
        from: 'news@acme.test',
        to: 'pat@example.test',
        subject: 'Spring sale',
        text: 'Hi',
        campaignId: CAMPAIGN,
        contactId: 'c2',
        listUnsubscribe: true,
      },
      'campaign',
    );
    expect(recorded).toEqual([
      { contactId: 'c1', outcome: { kind: 'sent', jobId: 'job_c1' } },
      { contactId: 'c2', outcome: { kind: 'sent', jobId: 'job_c2' } },
    ]);
    expect(steps).toEqual([
      `lock ${ORG}`,
      `claim ${ORG} ${FANOUT_BATCH_SIZE} ${NOW.toISOString()}`,
      `sms ${ORG}`,
      `record ${ORG} ${NOW.toISOString()}`,
      `count ${ORG} 2 0`,
      'commit',
    ]);
  });

  it('records a recipient that has a message already sent, and never sends it again', async () => {
    const { service, channels, recorded } = setup({
      due: [[{ organizationId: ORG, id: CAMPAIGN }]],
      claimed: [[row('c1')]],
      already: new Map([['c1', 'job_earlier']]),
    });
    await service.runDue();
    expect(channels.sendSms).not.toHaveBeenCalled();
    expect(outcomeOf(recorded, 'c1')).toEqual({ kind: 'sent', jobId: 'job_earlier' });
  });

  it('holds a recipient inside the quiet hours of its own time zone until they end', async () => {
    // 12:00 UTC is 08:00 in New York, inside 22:00–09:00; 14:00 in Berlin is outside.
    const { service, channels, recorded } = setup({
      sending: campaign({ quietStart: 22 * 60, quietEnd: 9 * 60 }),
      due: [[{ organizationId: ORG, id: CAMPAIGN }]],
      claimed: [
        [row('ny', { timezone: 'America/New_York' }), row('de', { timezone: 'Europe/Berlin' })],
      ],
    });
    expect(await service.runDue()).toMatchObject({ sent: 1, held: 1 });
    expect(outcomeOf(recorded, 'ny')).toEqual({
      kind: 'held',
      until: at(HOUR),
      error: "Quiet hours in the contact's time zone",
    });
    expect(channels.sendSms).toHaveBeenCalledTimes(1);
  });

  it('fails an email recipient whose address is gone', async () => {
    const { service, sender, recorded } = setup({
      due: [[{ organizationId: ORG, id: CAMPAIGN }]],
      claimed: [[row('c1', { channel: 'email' })]],
    });
    expect(await service.runDue()).toMatchObject({ failed: 1 });
    expect(sender.send).not.toHaveBeenCalled();
    expect(outcomeOf(recorded, 'c1')).toEqual({
      kind: 'failed',
      error: 'Contact has no email address',
    });
  });
});

describe('CampaignFanoutService: refusals of the send path', () => {
  const refusedWith = (err: Error, sending = campaign()) =>
    setup({
      sending,
      due: [[{ organizationId: ORG, id: CAMPAIGN }]],
      claimed: [[row('c1')]],
      send: () => Promise.reject(err),
    });

  it('holds a recipient refused by a limit for its Retry-After, and stops the campaign for this run', async () => {
    const { service, recorded, campaigns } = refusedWith(
      new RateLimitedError('Rate limit exceeded: perMinute', 12),
    );
    expect(await service.runDue()).toEqual({ sent: 0, held: 1, failed: 0, completed: 0 });
    expect(outcomeOf(recorded, 'c1')).toEqual({
      kind: 'held',
      until: at(12_000),
      error: 'Rate limit exceeded: perMinute',
    });
    expect(campaigns.addCounts).not.toHaveBeenCalled();
    expect(campaigns.claimDue).toHaveBeenCalledTimes(1);
  });

  it('holds through an outage for its Retry-After, and 15 minutes without a subscription', async () => {
    const outage = refusedWith(
      new ServiceUnavailableError('Sending is temporarily unavailable', 5),
    );
    await outage.service.runDue();
    expect(outcomeOf(outage.recorded, 'c1')).toMatchObject({ kind: 'held', until: at(5000) });
    const lapsed = refusedWith(new SubscriptionRequiredError());
    await lapsed.service.runDue();
    expect(outcomeOf(lapsed.recorded, 'c1')).toMatchObject({
      kind: 'held',
      until: at(15 * 60_000),
    });
  });

  it('fails a held recipient whose next try would fall more than 24 hours after the start', async () => {
    const late = campaign({ startedAt: at(-24 * HOUR + 10_000) });
    const { service, recorded } = refusedWith(
      new RateLimitedError('Rate limit exceeded: perDay', 60),
      late,
    );
    expect(await service.runDue()).toMatchObject({ failed: 1, held: 0 });
    expect(outcomeOf(recorded, 'c1')).toEqual({
      kind: 'failed',
      error: 'Rate limit exceeded: perDay; not sent within 24 hours',
    });
  });

  it('fails a recipient the send path refuses for good, and counts it', async () => {
    const { service, recorded, steps } = refusedWith(new NotFoundError('Contact'));
    await service.runDue();
    expect(outcomeOf(recorded, 'c1')).toEqual({ kind: 'failed', error: 'Contact not found' });
    expect(steps).toContain(`count ${ORG} 0 1`);
  });

  it('lets an unexpected error fail the batch: nothing is recorded', async () => {
    const { service, recorded } = refusedWith(new Error('socket hang up'));
    await expect(service.runDue()).rejects.toThrow('socket hang up');
    expect(recorded).toEqual([]);
  });
});

describe('CampaignFanoutService: runs and completion', () => {
  it('completes the campaign with campaign.sent and its counts by channel, then wakes after the commit', async () => {
    const { service, steps, events } = setup({
      due: [[{ organizationId: ORG, id: CAMPAIGN }]],
      claimed: [[row('c1')]],
      done: true,
    });
    expect(await service.runDue()).toMatchObject({ completed: 1 });
    expect(events.emit.mock.calls[0][2]).toEqual([
      {
        type: 'campaign.sent',
        data: {
          campaign: {
            id: CAMPAIGN,
            name: 'Spring',
            recipientCount: 3,
            sentCount: 2,
            failedCount: 1,
            unreachableCount: 0,
            byChannel: { sms: { recipients: 3, sent: 2, failed: 1 } },
          },
        },
      },
    ]);
    expect(steps.slice(-3)).toEqual([`emit ${ORG} campaign.sent`, 'commit', 'wake']);
  });

  it('runs a campaign batch after batch while they are full, each in its own organization', async () => {
    const full = Array.from({ length: FANOUT_BATCH_SIZE }, (_, i) => row(`c${i}`));
    const { service, campaigns, transactions } = setup({
      due: [
        [
          { organizationId: ORG, id: CAMPAIGN },
          { organizationId: ORG_B, id: 'other' },
        ],
        [
          { organizationId: ORG, id: CAMPAIGN },
          { organizationId: ORG_B, id: 'other' },
        ],
      ],
      claimed: [full, [], [row('last')]],
    });
    const total = await service.runDue();
    expect(total.sent).toBe(FANOUT_BATCH_SIZE + 1);
    expect(campaigns.lockSending.mock.calls.map((c) => [c[0], c[1]])).toEqual([
      [ORG, CAMPAIGN],
      [ORG_B, 'other'],
      [ORG, CAMPAIGN],
    ]);
    expect(transactions).toHaveLength(3);
  });

  it('never runs a batch again after a serialization failure: its sends are not part of it', async () => {
    const { service, channels, transactions, ds } = setup({
      due: [[{ organizationId: ORG, id: CAMPAIGN }]],
      claimed: [[row('c1')], [row('c1')]],
    });
    const run = ds.transaction;
    ds.transaction = async (work) => {
      await run(work);
      throw Object.assign(new Error('could not serialize access'), { code: '40001' });
    };
    await expect(service.runDue()).rejects.toMatchObject({ code: '40001' });
    expect(transactions).toHaveLength(1);
    expect(channels.sendSms).toHaveBeenCalledTimes(1);
  });

  it('leaves a campaign another worker holds (or that stopped sending) alone', async () => {
    const { service, campaigns, sweeper, channels } = setup({
      sending: null,
      due: [[{ organizationId: ORG, id: CAMPAIGN }]],
      claimed: [[row('c1')]],
    });
    expect(await service.runDue(CAMPAIGN)).toEqual({ sent: 0, held: 0, failed: 0, completed: 0 });
    expect(sweeper.dueCampaigns).toHaveBeenCalledWith(NOW, CAMPAIGN);
    expect(campaigns.claimDue).not.toHaveBeenCalled();
    expect(channels.sendSms).not.toHaveBeenCalled();
  });
});
