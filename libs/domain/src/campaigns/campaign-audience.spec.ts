// CampaignAudience over fakes: a list is one audience, a segment arrives as batches of contact ids
// from the segments service, each batch one statement, the counts summed over the batches.
import type { EntityManager } from 'typeorm';
import { asOrgId } from '../common/org-id';
import { NotFoundError } from '../errors/domain-errors';
import type { SegmentsService } from '../segments/segments.service';
import { CampaignAudience } from './campaign-audience';
import type { Audience, CampaignAudienceRepository } from './campaign-audience.repository';
import type { CampaignChannel } from './campaign.entity';

const ORG = asOrgId('00000000-0000-4000-8000-0000000000a1');
const LIST = '00000000-0000-4000-8000-00000000001a';
const SEGMENT = '00000000-0000-4000-8000-00000000005e';
const EM = {} as EntityManager;
const NOW = new Date('2026-01-01T00:00:00Z');

function setup(
  opts: {
    batches?: string[][];
    reach?: Map<string, { channel: CampaignChannel | null; n: number }[]>;
  } = {},
) {
  const repo = {
    listExists: jest.fn(() => Promise.resolve(true)),
    preferredChannels: jest.fn(() => Promise.resolve<string[]>([])),
    addRecipients: jest.fn(() => Promise.resolve()),
    recipientCounts: jest.fn(() => Promise.resolve({ reachable: 5, unreachable: 1 })),
    reach: jest.fn((_org: unknown, audience: Audience) =>
      Promise.resolve(opts.reach?.get(JSON.stringify(audience)) ?? []),
    ),
  };
  const segments = {
    get: jest.fn(() => Promise.resolve({ id: SEGMENT })),
    contactIdBatches: jest.fn(() =>
      Promise.resolve(
        (async function* () {
          for (const b of opts.batches ?? []) yield b;
        })(),
      ),
    ),
  };
  const audience = new CampaignAudience(
    repo as unknown as CampaignAudienceRepository,
    segments as unknown as SegmentsService,
  );
  return { repo, segments, audience };
}

describe('CampaignAudience.materialise', () => {
  it("inserts a list's members in one statement, without the segments area", async () => {
    const { repo, segments, audience } = setup();
    const counts = await audience.materialise(
      ORG,
      'camp',
      { listId: LIST, segmentId: null },
      ['sms', 'email'],
      NOW,
      EM,
    );
    expect(repo.addRecipients.mock.calls).toEqual([
      [ORG, 'camp', { listId: LIST }, ['sms', 'email'], NOW, EM],
    ]);
    expect(segments.contactIdBatches).not.toHaveBeenCalled();
    expect(counts).toEqual({ reachable: 5, unreachable: 1 });
  });

  it("inserts a segment's contacts batch by batch, then counts the recipients once", async () => {
    const { repo, segments, audience } = setup({ batches: [['a', 'b'], ['c']] });
    await audience.materialise(
      ORG,
      'camp',
      { listId: null, segmentId: SEGMENT },
      ['email'],
      NOW,
      EM,
    );
    expect(segments.contactIdBatches).toHaveBeenCalledWith(ORG, SEGMENT);
    expect(repo.addRecipients.mock.calls).toEqual([
      [ORG, 'camp', { contactIds: ['a', 'b'] }, ['email'], NOW, EM],
      [ORG, 'camp', { contactIds: ['c'] }, ['email'], NOW, EM],
    ]);
    expect(repo.recipientCounts).toHaveBeenCalledTimes(1);
    expect(repo.recipientCounts).toHaveBeenCalledWith(ORG, 'camp', EM);
  });

  it('inserts nothing for a segment with no contacts', async () => {
    const { repo, audience } = setup({ batches: [] });
    await audience.materialise(
      ORG,
      'camp',
      { listId: null, segmentId: SEGMENT },
      ['email'],
      NOW,
      EM,
    );
    expect(repo.addRecipients).not.toHaveBeenCalled();
  });
});

describe('CampaignAudience.reach', () => {
  it("sums a segment's batches by channel, listing every channel asked for", async () => {
    const reach = new Map([
      [
        JSON.stringify({ contactIds: ['a', 'b', 'c', 'd'] }),
        [
          { channel: 'email' as const, n: 3 },
          { channel: null, n: 1 },
        ],
      ],
      [
        JSON.stringify({ contactIds: ['e', 'f', 'g'] }),
        [
          { channel: 'sms' as const, n: 2 },
          { channel: 'email' as const, n: 1 },
        ],
      ],
    ]);
    const { audience } = setup({
      batches: [
        ['a', 'b', 'c', 'd'],
        ['e', 'f', 'g'],
      ],
      reach,
    });
    expect(
      await audience.reach(ORG, { listId: null, segmentId: SEGMENT }, ['sms', 'email', 'push']),
    ).toEqual({ total: 7, byChannel: { sms: 2, email: 4, push: 0 }, unreachable: 1 });
  });

  it('counts a list in one statement', async () => {
    const reach = new Map([[JSON.stringify({ listId: LIST }), [{ channel: null, n: 4 }]]]);
    const { repo, audience } = setup({ reach });
    expect(await audience.reach(ORG, { listId: LIST, segmentId: null }, ['email'])).toEqual({
      total: 4,
      byChannel: { email: 0 },
      unreachable: 4,
    });
    expect(repo.reach).toHaveBeenCalledTimes(1);
  });
});

describe('CampaignAudience targets', () => {
  it('404s a list that is not the organization’s, and asks the segments service for a segment', async () => {
    const { repo, segments, audience } = setup();
    repo.listExists.mockResolvedValueOnce(false);
    await expect(
      audience.assertTargetExists(ORG, { listId: LIST, segmentId: null }),
    ).rejects.toThrow(new NotFoundError('Contact list'));
    segments.get.mockRejectedValueOnce(new NotFoundError('Segment'));
    await expect(
      audience.assertTargetExists(ORG, { listId: null, segmentId: SEGMENT }),
    ).rejects.toThrow(new NotFoundError('Segment'));
    expect(segments.get).toHaveBeenCalledWith(ORG, SEGMENT);
  });

  it("defaults to the list's known preferred channels, else email", async () => {
    const { repo, audience } = setup();
    repo.preferredChannels.mockResolvedValueOnce(['fax', 'sms', 'email']);
    expect(await audience.defaultChannels(ORG, { listId: LIST, segmentId: null })).toEqual([
      'sms',
      'email',
    ]);
    repo.preferredChannels.mockResolvedValueOnce(['fax']);
    expect(await audience.defaultChannels(ORG, { listId: LIST, segmentId: null })).toEqual([
      'email',
    ]);
    expect(await audience.defaultChannels(ORG, { listId: null, segmentId: SEGMENT })).toEqual([
      'email',
    ]);
    expect(repo.preferredChannels).toHaveBeenCalledTimes(2);
  });
});
