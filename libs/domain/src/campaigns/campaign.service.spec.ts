// Campaign drafts and their lifecycle: what a draft needs (422 naming the field), that only a draft
// is edited, deleted or sent (409), what sending checks and writes, and the kick after the commit.
import { Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import type { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { asOrgId } from '../common/org-id';
import {
  CampaignNotSendableError,
  ConflictError,
  NotFoundError,
  ValidationFailedError,
} from '../errors/domain-errors';
import type { SenderPolicy } from '../sending-domains/sender-policy';
import type { CampaignAudience } from './campaign-audience';
import type { Campaign } from './campaign.entity';
import type { CampaignRepository } from './campaign.repository';
import { CampaignService, CreateCampaignInput } from './campaign.service';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const ID = '00000000-0000-4000-8000-0000000000c1';
const LIST = '00000000-0000-4000-8000-0000000000e1';
const SEGMENT = '00000000-0000-4000-8000-0000000000e2';
const NOW = new Date('2031-05-01T12:00:00.000Z');

class FixedClock extends Clock {
  now(): Date {
    return new Date(NOW.getTime());
  }
}

const draft = (extra: Partial<Campaign> = {}) =>
  ({
    id: ID,
    organizationId: ORG,
    name: 'Spring',
    channel: 'email',
    channels: ['email'],
    content: {},
    subject: 'Spring sale',
    html: null,
    text: 'Hi',
    from: 'News <news@acme.test>',
    listId: LIST,
    segmentId: null,
    status: 'draft',
    quietStart: null,
    quietEnd: null,
    ...extra,
  }) as Campaign;

function setup(
  opts: {
    stored?: Campaign | null;
    reach?: { reachable: number; unreachable: number };
    targetGone?: boolean;
    kickFails?: boolean;
  } = {},
) {
  let stored = opts.stored === undefined ? draft() : opts.stored;
  const steps: [string, ...unknown[]][] = [];
  const em = { tx: true } as unknown as EntityManager;
  const ds = {
    transaction: async (work: (e: EntityManager) => Promise<unknown>) => {
      steps.push(['begin']);
      const out = await work(em);
      steps.push(['commit']);
      return out;
    },
  };
  const queue = {
    add: jest.fn(async (name: string, job: unknown) => {
      steps.push(['kick', name, job]);
      if (opts.kickFails) throw new Error('redis down');
    }),
  };
  const campaigns = {
    find: jest.fn(async (org: string, id: string, o: { lock?: boolean } = {}) => {
      steps.push([o.lock ? 'lock' : 'find', org, id]);
      return stored;
    }),
    insert: jest.fn(async (org: string, fields: Partial<Campaign>) => {
      steps.push(['insert', org]);
      stored = { ...draft(), ...fields } as Campaign;
      return ID;
    }),
    update: jest.fn(async (org: string, id: string, patch: Partial<Campaign>) => {
      steps.push(['update', org, id, patch]);
      stored = { ...stored!, ...patch } as Campaign;
    }),
    delete: jest.fn(async (org: string, id: string) => {
      steps.push(['delete', org, id]);
    }),
    cancel: jest.fn(async (org: string, id: string, at: Date) => {
      steps.push(['cancel', org, id, at]);
    }),
    list: jest.fn(async () => [[draft()], 1]),
    channelCounts: jest.fn(async () => ({
      recipients: [
        { channel: 'email', status: 'sent', n: 5 },
        { channel: 'email', status: 'held', n: 2 },
        { channel: 'sms', status: 'pending', n: 3 },
        { channel: 'none', status: 'unreachable', n: 9 },
      ],
      messages: [
        { channel: 'email', status: 'delivered', n: 4 },
        { channel: 'email', status: 'bounced', n: 1 },
      ],
    })),
  };
  const audience = {
    assertTargetExists: jest.fn(async (org: string, target: unknown) => {
      steps.push(['target', org, target]);
      if (opts.targetGone) throw new NotFoundError('List');
    }),
    defaultChannels: jest.fn(async () => ['sms', 'email']),
    reach: jest.fn(async () => ({ total: 3, byChannel: { email: 3 }, unreachable: 0 })),
    materialise: jest.fn(
      async (org: string, id: string, _t: unknown, channels: string[], at: Date) => {
        steps.push(['materialise', org, id, channels, at]);
        return opts.reach ?? { reachable: 3, unreachable: 1 };
      },
    ),
  };
  const senders = {
    assertMaySend: jest.fn(async (org: string, from: string) => {
      steps.push(['sender', org, from]);
    }),
  };
  const service = new CampaignService(
    ds as unknown as DataSource,
    queue as unknown as Queue,
    campaigns as unknown as CampaignRepository,
    audience as unknown as CampaignAudience,
    new FixedClock(),
    senders as unknown as SenderPolicy,
  );
  return { service, steps, campaigns, audience, queue };
}

/** The field and rule of a 422, or a failure when the call did not answer one. */
async function fieldError(call: Promise<unknown>) {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ValidationFailedError);
  const [first] = (err as ValidationFailedError).errors;
  return [first.field, first.rule];
}

const emailDraft: CreateCampaignInput = {
  name: 'Spring',
  channel: 'email',
  listId: LIST,
  subject: 'Spring sale',
  from: 'news@acme.test',
  text: 'Hi',
};

beforeAll(() => Logger.overrideLogger(false));

describe('CampaignService.create', () => {
  it('inserts a draft with zero counts for the organization, on the channel given', async () => {
    const { service, campaigns, audience } = setup();
    await service.create(ORG, emailDraft);
    expect(audience.assertTargetExists).toHaveBeenCalledWith(ORG, {
      listId: LIST,
      segmentId: null,
    });
    expect(audience.defaultChannels).not.toHaveBeenCalled();
    expect(campaigns.insert.mock.calls[0][0]).toBe(ORG);
    expect(campaigns.insert.mock.calls[0][1]).toMatchObject({
      name: 'Spring',
      channels: ['email'],
      channel: 'email',
      listId: LIST,
      segmentId: null,
      status: 'draft',
      recipientCount: 0,
      sentCount: 0,
      failedCount: 0,
      unreachableCount: 0,
      quietStart: null,
      quietEnd: null,
      html: null,
    });
  });

  it("takes the list's preferred channels when none are given", async () => {
    const { service, campaigns } = setup();
    await service.create(ORG, {
      ...emailDraft,
      channel: undefined,
      content: { sms: { text: 'Hi' } },
    });
    expect(campaigns.insert.mock.calls[0][1]).toMatchObject({
      channels: ['sms', 'email'],
      channel: 'sms',
    });
  });

  it.each([
    ['both a list and a segment', { segmentId: SEGMENT }, ['segmentId', 'unknown']],
    ['no audience', { listId: undefined }, ['listId', 'required']],
    ['an email without a subject', { subject: undefined }, ['subject', 'required']],
    ['an email without a sender', { from: undefined }, ['from', 'required']],
    ['an email without html or text', { text: undefined }, ['html', 'required']],
    ['a channel named twice', { channels: ['email', 'email'] }, ['channels', 'type']],
    ['no channel', { channels: [] }, ['channels', 'type']],
    ['an SMS without its text', { channels: ['email', 'sms'] }, ['content.sms', 'required']],
    [
      'a push without title or body',
      { channels: ['push'], content: { push: {} } },
      ['content.push', 'required'],
    ],
    [
      'quiet hours out of format',
      { quietHours: { start: '22:00', end: '7am' } },
      ['quietHours.end', 'type'],
    ],
  ] as const)(
    'refuses %s with 422 naming the field, and inserts nothing',
    async (_, patch, want) => {
      const { service, campaigns } = setup();
      const input = { ...emailDraft, ...patch } as CreateCampaignInput;
      expect(await fieldError(service.create(ORG, input))).toEqual(want);
      expect(campaigns.insert).not.toHaveBeenCalled();
    },
  );

  it('takes a WhatsApp template for its text, and stores quiet hours as minutes of the day', async () => {
    const { service, campaigns } = setup();
    await service.create(ORG, {
      ...emailDraft,
      channels: ['whatsapp'],
      content: { whatsapp: { template: { name: 'spring', language: 'en' } } },
      quietHours: { start: '22:30', end: '07:00' },
    } as CreateCampaignInput);
    expect(campaigns.insert.mock.calls[0][1]).toMatchObject({ quietStart: 1350, quietEnd: 420 });
  });

  it("answers 404 for an audience that is not the organization's", async () => {
    const { service, campaigns } = setup({ targetGone: true });
    await expect(service.create(ORG, emailDraft)).rejects.toBeInstanceOf(NotFoundError);
    expect(campaigns.insert).not.toHaveBeenCalled();
  });
});

describe('CampaignService: only a draft changes', () => {
  it('updates a locked draft with the fields given, the first channel as its channel', async () => {
    const { service, steps } = setup();
    await service.update(ORG, ID, {
      name: 'Later',
      channels: ['email', 'sms'],
      content: { sms: { text: 'x' } },
    });
    expect(steps.slice(0, 3)).toEqual([
      ['begin'],
      ['lock', ORG, ID],
      [
        'update',
        ORG,
        ID,
        {
          name: 'Later',
          content: { sms: { text: 'x' } },
          channels: ['email', 'sms'],
          channel: 'email',
        },
      ],
    ]);
  });

  it('refuses to leave a draft unsendable', async () => {
    const { service, campaigns } = setup();
    expect(await fieldError(service.update(ORG, ID, { subject: '' }))).toEqual([
      'subject',
      'required',
    ]);
    expect(campaigns.update).not.toHaveBeenCalled();
  });

  it.each(['sending', 'sent', 'cancelled'] as const)(
    'refuses to edit or delete a campaign that is %s (409)',
    async (status) => {
      const { service, campaigns } = setup({ stored: draft({ status }) });
      const edit = await service.update(ORG, ID, { name: 'x' }).catch((e: unknown) => e);
      expect(edit).toBeInstanceOf(ConflictError);
      expect((edit as Error).message).toBe(`Campaign is ${status}; only a draft can be edited`);
      await expect(service.remove(ORG, ID)).rejects.toBeInstanceOf(ConflictError);
      expect(campaigns.update).not.toHaveBeenCalled();
      expect(campaigns.delete).not.toHaveBeenCalled();
    },
  );

  it("answers 404 for a campaign that is not the organization's", async () => {
    const { service } = setup({ stored: null });
    await expect(service.get(ORG, ID)).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.update(ORG, ID, {})).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.send(ORG, ID)).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.cancel(ORG, ID)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('deletes a draft and answers it', async () => {
    const { service, steps } = setup();
    expect(await service.remove(ORG, ID)).toMatchObject({ id: ID, status: 'draft' });
    expect(steps).toContainEqual(['delete', ORG, ID]);
  });
});

describe('CampaignService.send', () => {
  it('checks the sender, materialises the audience and moves the draft to sending, then kicks it', async () => {
    const { service, steps } = setup();
    const sent = await service.send(ORG, ID);
    expect(sent.status).toBe('sending');
    expect(steps).toEqual([
      ['begin'],
      ['lock', ORG, ID],
      ['sender', ORG, 'news@acme.test'],
      ['target', ORG, { listId: LIST, segmentId: null }],
      ['materialise', ORG, ID, ['email'], NOW],
      [
        'update',
        ORG,
        ID,
        { status: 'sending', recipientCount: 3, unreachableCount: 1, startedAt: NOW },
      ],
      ['find', ORG, ID],
      ['commit'],
      ['kick', 'campaign.kick', { campaignId: ID, organizationId: ORG }],
    ]);
  });

  it('answers the campaign even when the kick cannot be queued (the poll picks it up)', async () => {
    const { service } = setup({ kickFails: true });
    expect((await service.send(ORG, ID)).status).toBe('sending');
  });

  it.each(['sending', 'sent', 'cancelled'] as const)(
    'refuses a campaign that is %s with E_CAMPAIGN_NOT_SENDABLE',
    async (status) => {
      const { service, queue } = setup({ stored: draft({ status }) });
      const err = await service.send(ORG, ID).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CampaignNotSendableError);
      expect((err as CampaignNotSendableError).code).toBe('E_CAMPAIGN_NOT_SENDABLE');
      expect(queue.add).not.toHaveBeenCalled();
    },
  );

  it('refuses a campaign nobody can be reached by, and leaves it a draft', async () => {
    const { service, campaigns, queue } = setup({ reach: { reachable: 0, unreachable: 4 } });
    const err = await service.send(ORG, ID).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CampaignNotSendableError);
    expect((err as Error).message).toBe(
      'Campaign has no recipients: none of its 4 contacts can be reached on email',
    );
    expect(campaigns.update).not.toHaveBeenCalled();
    expect(queue.add).not.toHaveBeenCalled();
  });

  it('refuses a campaign whose audience is gone as not sendable, not 404', async () => {
    const { service } = setup({ targetGone: true });
    await expect(service.send(ORG, ID)).rejects.toBeInstanceOf(CampaignNotSendableError);
  });

  it('checks no sender for a campaign without email', async () => {
    const { service, steps } = setup({
      stored: draft({ channels: ['sms'], channel: 'sms', content: { sms: { text: 'x' } } }),
    });
    await service.send(ORG, ID);
    expect(steps.some((s) => s[0] === 'sender')).toBe(false);
  });
});

describe('CampaignService.cancel', () => {
  it.each(['draft', 'sending'] as const)('cancels a %s campaign at now', async (status) => {
    const { service, steps } = setup({ stored: draft({ status }) });
    await service.cancel(ORG, ID);
    expect(steps).toContainEqual(['cancel', ORG, ID, NOW]);
  });

  it.each(['sent', 'cancelled'] as const)('refuses a %s campaign (409)', async (status) => {
    const { service, campaigns } = setup({ stored: draft({ status }) });
    await expect(service.cancel(ORG, ID)).rejects.toBeInstanceOf(ConflictError);
    expect(campaigns.cancel).not.toHaveBeenCalled();
  });
});

describe('CampaignService.byChannel', () => {
  it('counts recipients by fan-out status and messages by delivery status, per channel', async () => {
    const { service } = setup();
    const out = await service.byChannel(ORG, ID);
    expect(Object.keys(out)).toEqual(['email', 'sms']);
    expect(out.email).toMatchObject({ recipients: 7, sent: 5, held: 2, pending: 0, failed: 0 });
    expect(out.email.delivery).toMatchObject({ delivered: 4, bounced: 1, queued: 0 });
    expect(out.sms).toMatchObject({ recipients: 3, pending: 3 });
    expect(Object.values(out.sms.delivery).every((n) => n === 0)).toBe(true);
  });
});
