// Reading the message log: a missing message is a 404, a log store that fails is a 503, an
// engagement store that fails leaves the message without events; rows are capped at 500.
import { Logger } from '@nestjs/common';
import { asOrgId } from '../common/org-id';
import { NotFoundError, ServiceUnavailableError } from '../errors/domain-errors';
import type { OrganizationService } from '../tenancy/organization.service';
import type { EngagementEventRow, EngagementStore } from './engagement/engagement.store';
import type { MessageLogRepository } from './message-log.repository';
import { MESSAGE_LOG_ROW_CAP, MessageLogService } from './message-log.service';
import type { AttemptRecord, MessageSummary } from './message.types';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const AT = new Date('2031-05-01T12:00:00.000Z');

const summary: MessageSummary = {
  id: '00000000-0000-4000-8000-0000000000a1',
  channel: 'email',
  jobId: 'job_01J0000000000000000000000A',
  messageId: '<01J0000000000000000000000A@acme.test>',
  senderAddress: 'news@acme.test',
  campaignId: null,
  contactId: null,
  status: 'delivered',
  tags: [],
  recipients: ['a@example.test'],
  createdAt: AT,
  completedAt: AT,
};
const attempt: AttemptRecord = {
  recipientIdx: 0,
  status: 'delivered',
  smtpCode: 250,
  smtpMessage: '250 ok',
  mxHost: 'mx.example.test',
  outboundIp: null,
  retryCount: 0,
  attemptedAt: AT,
};
const opened: EngagementEventRow = {
  type: 'opened',
  recipientIndex: 0,
  userAgent: null,
  remoteIp: null,
  occurredAt: AT,
} as unknown as EngagementEventRow;

function setup(
  opts: {
    found?: boolean;
    logFails?: Error;
    engagementFails?: boolean;
  } = {},
) {
  const messages = {
    findByJobId: jest.fn(async () => {
      if (opts.logFails) throw opts.logFails;
      return opts.found === false ? null : { summary, attempts: [attempt] };
    }),
    list: jest.fn(async () => {
      if (opts.logFails) throw opts.logFails;
      return { items: [summary], total: 41 };
    }),
  };
  const engagement = {
    forMessage: jest.fn(async () => {
      if (opts.engagementFails) throw new Error('ECONNREFUSED');
      return [opened];
    }),
  };
  const organizations = { get: jest.fn(async () => ({ id: ORG, messageRetentionDays: 30 })) };
  const service = new MessageLogService(
    messages as unknown as MessageLogRepository,
    engagement as unknown as EngagementStore,
    organizations as unknown as OrganizationService,
  );
  return { service, messages, engagement, organizations };
}

beforeAll(() => Logger.overrideLogger(false));

describe('MessageLogService.get', () => {
  it('answers the summary, attempts, events and retention, each read capped at 500 rows', async () => {
    const { service, messages, engagement, organizations } = setup();
    expect(await service.get(ORG, summary.jobId)).toEqual({
      summary,
      attempts: [attempt],
      events: [opened],
      retentionDays: 30,
    });
    expect(MESSAGE_LOG_ROW_CAP).toBe(500);
    expect(messages.findByJobId).toHaveBeenCalledWith(ORG, summary.jobId, 500);
    expect(engagement.forMessage).toHaveBeenCalledWith(ORG, summary.id, 500);
    expect(organizations.get).toHaveBeenCalledWith(ORG);
  });

  it('answers 404 for a message the organization does not have, not 503', async () => {
    const { service, engagement } = setup({ found: false });
    const err = await service.get(ORG, 'job_missing').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as Error).message).toBe('Message not found');
    expect(engagement.forMessage).not.toHaveBeenCalled();
  });

  it('answers 503 when the log store fails', async () => {
    const { service } = setup({ logFails: new Error('connection terminated') });
    const err = await service.get(ORG, summary.jobId).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(err).toMatchObject({ code: 'E_SERVICE_UNAVAILABLE', retryAfter: 5 });
    // The store's own words stay in the log, not in the answer.
    expect((err as Error).message).not.toContain('connection terminated');
  });

  it('answers the message without events when the engagement store fails', async () => {
    const { service } = setup({ engagementFails: true });
    const entry = await service.get(ORG, summary.jobId);
    expect(entry.events).toEqual([]);
    expect(entry.attempts).toEqual([attempt]);
  });
});

describe('MessageLogService.list', () => {
  it("answers a page of summaries, each with the organization's retention", async () => {
    const { service, messages } = setup();
    const filters = { status: 'delivered' as const };
    const page = await service.list(ORG, filters, { page: 2, limit: 20 });
    expect(page.items).toEqual([{ summary, retentionDays: 30 }]);
    expect(page.total).toBe(41);
    expect(page.request).toEqual({ page: 2, limit: 20 });
    expect(messages.list).toHaveBeenCalledWith(ORG, filters, { page: 2, limit: 20 });
  });

  it('answers 503 when the log store fails, and passes a domain error through', async () => {
    const down = setup({ logFails: new Error('timeout') });
    await expect(down.service.list(ORG, {}, { page: 1, limit: 20 })).rejects.toBeInstanceOf(
      ServiceUnavailableError,
    );
    const missing = setup({ logFails: new NotFoundError('Campaign') });
    await expect(missing.service.list(ORG, {}, { page: 1, limit: 20 })).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });
});
