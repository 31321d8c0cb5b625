// The contacts area's door for the messaging area's feedback on channel records, with a fake
// repository: each change runs in the caller's transaction, for the caller's organization, with
// its arguments as given, and answers what the repository answers.
import type { EntityManager } from 'typeorm';
import { asOrgId } from '../common/org-id';
import type { ChannelFeedbackRepository } from './channel-feedback.repository';
import { ChannelFeedbackService } from './channel-feedback.service';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const AT = new Date('2026-04-01T08:00:00.000Z');

describe(ChannelFeedbackService.name, () => {
  const em = { name: 'the caller transaction' } as unknown as EntityManager;
  let calls: [string, ...unknown[]][];
  let service: ChannelFeedbackService;

  beforeEach(() => {
    calls = [];
    const record =
      <T>(name: string, answer: T) =>
      async (...args: unknown[]) => {
        calls.push([name, ...args]);
        return answer;
      };
    const repository = {
      apply: record('apply', undefined),
      linkTelegramChat: record('linkTelegramChat', true),
      seen: record('seen', 2),
      optOut: record('optOut', 3),
      optIn: record('optIn', 1),
    };
    service = new ChannelFeedbackService(repository as unknown as ChannelFeedbackRepository);
  });

  it("applies a send's or a provider's verdict on an address in the caller's transaction", async () => {
    const change = {
      channel: 'sms' as const,
      address: '+14155550100',
      effect: 'used' as const,
      at: AT,
    };
    await service.apply(em, ORG, change);
    expect(calls).toEqual([['apply', em, ORG, change]]);
  });

  it("links a Telegram chat to a record, and says whether the record was the organization's", async () => {
    expect(await service.linkTelegramChat(em, ORG, 'record-1', '777', AT)).toBe(true);
    expect(calls).toEqual([['linkTelegramChat', em, ORG, 'record-1', '777', AT]]);
  });

  it('marks a contact seen writing to us, unblocked only when told, and counts the records', async () => {
    expect(await service.seen(em, ORG, 'whatsapp', '+14155550100', AT)).toBe(2);
    expect(await service.seen(em, ORG, 'telegram', '777', AT, true)).toBe(2);
    expect(calls).toEqual([
      ['seen', em, ORG, 'whatsapp', '+14155550100', AT, false],
      ['seen', em, ORG, 'telegram', '777', AT, true],
    ]);
  });

  it("opts a number's SMS records out on STOP and back in on START, counting what moved", async () => {
    expect(await service.optOut(em, ORG, '+14155550100', AT)).toBe(3);
    expect(await service.optIn(em, ORG, '+14155550100', AT)).toBe(1);
    expect(calls).toEqual([
      ['optOut', em, ORG, '+14155550100', AT],
      ['optIn', em, ORG, '+14155550100', AT],
    ]);
  });
});
