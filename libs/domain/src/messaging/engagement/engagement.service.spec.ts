// The engagement service records an event for the organization it is given, and leaves an outage
// of the engagement store to its caller.
import { asOrgId } from '../../common/org-id';
import { EngagementService } from './engagement.service';
import type { EngagementStore } from './engagement.store';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const AT = new Date('2031-05-01T12:00:00.000Z');
const event = {
  messageId: '00000000-0000-4000-8000-0000000000e1',
  recipientIndex: 1,
  type: 'unsubscribed' as const,
  userAgent: 'Mail/1.0',
  remoteIp: null,
  occurredAt: AT,
};

describe('EngagementService.record', () => {
  it("writes the event of the organization's message", async () => {
    const store = { record: jest.fn(async () => undefined) };
    await new EngagementService(store as unknown as EngagementStore).record(ORG, event);
    expect(store.record).toHaveBeenCalledWith(ORG, event);
  });

  it("rejects with the store's error when the store is unavailable", async () => {
    const down = new Error('connection refused');
    const store = { record: jest.fn(async () => Promise.reject(down)) };
    await expect(
      new EngagementService(store as unknown as EngagementStore).record(ORG, event),
    ).rejects.toBe(down);
  });
});
