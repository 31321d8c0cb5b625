// Recording a conversion: the campaign and contact must be the organization's (404), the order id
// is recorded once, and the defaults (currency, channel, time) are filled in.
import { Clock } from '../common/clock';
import { asOrgId } from '../common/org-id';
import { NotFoundError } from '../errors/domain-errors';
import type { Conversion } from './conversion.entity';
import type { ConversionRepository } from './conversion.repository';
import { ConversionService } from './conversion.service';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const CAMPAIGN = '00000000-0000-4000-8000-0000000000c1';
const CONTACT = '00000000-0000-4000-8000-0000000000d1';
const NOW = new Date('2031-05-01T12:00:00.000Z');

class FixedClock extends Clock {
  now(): Date {
    return new Date(NOW.getTime());
  }
}

/** A conversion store for one organization: campaigns by channel, contacts, orders. */
function fakeConversions(opts: { campaigns?: Record<string, string>; contacts?: string[] } = {}) {
  const campaigns = opts.campaigns ?? { [CAMPAIGN]: 'sms' };
  const contacts = new Set(opts.contacts ?? [CONTACT]);
  const orders = new Map<string, Record<string, unknown>>();
  const calls: { method: string; organizationId: string }[] = [];
  const repo = {
    campaignChannel: jest.fn(async (organizationId: string, campaignId: string) => {
      calls.push({ method: 'campaignChannel', organizationId });
      return campaigns[campaignId] ?? null;
    }),
    contactExists: jest.fn(async (organizationId: string, contactId: string) => {
      calls.push({ method: 'contactExists', organizationId });
      return contacts.has(contactId);
    }),
    insertOnce: jest.fn(async (organizationId: string, c: { orderId: string }) => {
      calls.push({ method: 'insertOnce', organizationId });
      if (orders.has(c.orderId)) return false;
      orders.set(c.orderId, { ...c, organizationId });
      return true;
    }),
    findByOrder: jest.fn(async (organizationId: string, orderId: string) => {
      calls.push({ method: 'findByOrder', organizationId });
      return orders.get(orderId) as unknown as Conversion;
    }),
  };
  return { repo, calls, orders };
}

function serviceWith(fake: ReturnType<typeof fakeConversions>) {
  return new ConversionService(fake.repo as unknown as ConversionRepository, new FixedClock());
}

describe('ConversionService.record', () => {
  it("fills in USD, the campaign's channel and now, and passes the organization to every read and write", async () => {
    const fake = fakeConversions();
    const out = await serviceWith(fake).record(ORG, {
      campaignId: CAMPAIGN,
      orderId: 'order-1',
      revenue: 42.5,
    });
    expect(out.created).toBe(true);
    expect(out.conversion).toMatchObject({
      organizationId: ORG,
      campaignId: CAMPAIGN,
      contactId: null,
      orderId: 'order-1',
      revenue: 42.5,
      currency: 'USD',
      channel: 'sms',
      occurredAt: NOW,
    });
    expect(fake.calls.map((c) => c.method)).toEqual([
      'campaignChannel',
      'insertOnce',
      'findByOrder',
    ]);
    expect(fake.calls.every((c) => c.organizationId === ORG)).toBe(true);
  });

  it('keeps a given currency (upper-cased), channel, contact and time', async () => {
    const fake = fakeConversions();
    const at = new Date('2031-04-30T08:00:00.000Z');
    const out = await serviceWith(fake).record(ORG, {
      campaignId: CAMPAIGN,
      contactId: CONTACT,
      orderId: 'order-2',
      revenue: 10,
      currency: 'eur',
      channel: 'email',
      occurredAt: at,
    });
    expect(out.conversion).toMatchObject({
      contactId: CONTACT,
      currency: 'EUR',
      channel: 'email',
      occurredAt: at,
    });
    expect(fake.repo.contactExists).toHaveBeenCalledWith(ORG, CONTACT);
  });

  it('records an order once: a repeat stores nothing and answers the first record', async () => {
    const fake = fakeConversions();
    const service = serviceWith(fake);
    await service.record(ORG, { campaignId: CAMPAIGN, orderId: 'order-3', revenue: 5 });
    const again = await service.record(ORG, {
      campaignId: CAMPAIGN,
      orderId: 'order-3',
      revenue: 999,
      currency: 'gbp',
    });
    expect(again.created).toBe(false);
    expect(again.conversion).toMatchObject({ revenue: 5, currency: 'USD' });
    expect(fake.orders.size).toBe(1);
  });

  it("answers 404 for a campaign that is not the organization's, before anything is written", async () => {
    const fake = fakeConversions({ campaigns: {} });
    const err = await serviceWith(fake)
      .record(ORG, { campaignId: CAMPAIGN, orderId: 'order-4', revenue: 1 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).code).toBe('E_ROW_NOT_FOUND');
    expect((err as Error).message).toBe('Campaign not found');
    expect(fake.repo.insertOnce).not.toHaveBeenCalled();
  });

  it("answers 404 for a contact that is not the organization's, before anything is written", async () => {
    const fake = fakeConversions({ contacts: [] });
    const err = await serviceWith(fake)
      .record(ORG, { campaignId: CAMPAIGN, contactId: CONTACT, orderId: 'o-5', revenue: 1 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as Error).message).toBe('Contact not found');
    expect(fake.repo.insertOnce).not.toHaveBeenCalled();
  });
});
