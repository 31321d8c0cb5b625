import type { EntityManager } from 'typeorm';
import { asOrgId } from '../common/org-id';
import type { ChannelFeedbackService, RecordEffect } from '../contacts/channel-feedback.service';
import type { ContactEmailService } from '../contacts/contact-email.service';
import type { Events, NewEvent } from '../events/events.service';
import type {
  AttemptsRecord,
  AttemptsWrite,
  LockedMessage,
  MessageReport,
} from './message-attempts';
import type { MessageAttemptsRepository } from './message-attempts.repository';
import { MessageAttemptsService } from './message-attempts.service';

const ORG = asOrgId('6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f');
const EM = {} as EntityManager;
const AT = new Date('2025-05-01T10:00:00Z');
const MESSAGE = '0b5f0b9e-8a47-4c4f-9d6e-2f3b1c0d9e8a';

/** Each call of the fakes, in order, with what it was given. */
function fakes(locked: LockedMessage | null = null) {
  const calls: [string, ...unknown[]][] = [];
  const repository = {
    record: jest.fn((em: EntityManager, org: string, writes: AttemptsWrite[]) => {
      calls.push(['rows', org, writes]);
      return Promise.resolve(writes.map((w, i) => (w.message ? 10 + i : 0)));
    }),
    lockForReport: jest.fn((em: EntityManager, org: string, id: string) => {
      calls.push(['lock', org, id]);
      return Promise.resolve(locked);
    }),
  };
  const contactEmails = {
    recordBounces: jest.fn((em: EntityManager, org: string, bounces: unknown) => {
      calls.push(['bounces', org, bounces]);
      return Promise.resolve();
    }),
  };
  const channelRecords = {
    apply: jest.fn((em: EntityManager, org: string, change: RecordEffect) => {
      calls.push(['record', org, change]);
      return Promise.resolve();
    }),
  };
  const events = {
    emit: jest.fn((em: EntityManager, org: string, list: NewEvent[]) => {
      calls.push(['events', org, list]);
      return Promise.resolve();
    }),
  };
  const service = new MessageAttemptsService(
    repository as unknown as MessageAttemptsRepository,
    contactEmails as unknown as ContactEmailService,
    channelRecords as unknown as ChannelFeedbackService,
    events as unknown as Events,
  );
  return { service, calls, repository };
}

const event = (type: string): NewEvent => ({ type: type as NewEvent['type'], data: {} });

const run = (id: string, over: Partial<AttemptsRecord> = {}): AttemptsRecord => ({
  messageId: id,
  attempts: [],
  recipients: [],
  message: { kind: 'run', outcome: { status: 'delivered', nextAttemptAt: null, completedAt: AT } },
  bounces: [],
  recordEffect: null,
  events: [],
  at: AT,
  ...over,
});

describe('MessageAttemptsService.record', () => {
  it('writes the rows of a batch at once, then each one’s bounces and record change, then the events', async () => {
    const { service, calls } = fakes();
    const effect: RecordEffect = {
      channel: 'sms',
      address: '+15551234567',
      effect: 'used',
      at: AT,
    };
    const seqs = await service.record(EM, ORG, [
      run('m1', { bounces: [{ email: 'a@x.example', hard: true }], events: [event('e1')] }),
      run('m2', { recordEffect: effect, events: [event('e2'), event('e3')] }),
    ]);
    expect(seqs).toEqual([10, 11]);
    expect(calls.map((c) => c[0])).toEqual(['rows', 'bounces', 'record', 'events']);
    expect(calls.every((c) => c[1] === ORG)).toBe(true);
    expect((calls[0][2] as AttemptsWrite[]).map((w) => w.messageId)).toEqual(['m1', 'm2']);
    expect(calls[1][2]).toEqual([{ email: 'a@x.example', hard: true }]);
    expect(calls[2][2]).toBe(effect);
    expect((calls[3][2] as NewEvent[]).map((e) => e.type)).toEqual(['e1', 'e2', 'e3']);
  });

  it('sends no statement when no record writes a row', async () => {
    const { service, calls } = fakes();
    const seqs = await service.record(EM, ORG, [
      run('m1', { message: null, events: [event('e')] }),
    ]);
    expect(seqs).toEqual([0]);
    expect(calls.map((c) => c[0])).toEqual(['events']);
  });
});

describe('MessageAttemptsService.recordReport', () => {
  const report = (over: Partial<MessageReport> = {}): MessageReport => ({
    messageId: MESSAGE,
    recipientIdx: 0,
    attempt: { status: 'bounced', smtpCode: 550, retryCount: 0, attemptedAt: AT },
    movesFrom: ['delivered'],
    bounces: [{ email: 'a@x.example', hard: true }],
    recordEffect: null,
    events: [event('email.bounced')],
    ...over,
  });
  const delivered: LockedMessage = {
    status: 'delivered',
    recipients: [{ idx: 0, status: 'delivered', retryCount: 1, firstAttemptAt: AT }],
  };

  it('locks the message first, then records the move and the status its recipients give', async () => {
    const { service, calls } = fakes(delivered);
    expect(await service.recordReport(EM, ORG, report())).toEqual({ moved: true });
    expect(calls.map((c) => c[0])).toEqual(['lock', 'rows', 'bounces', 'events']);
    expect(calls[0]).toEqual(['lock', ORG, MESSAGE]);
    const [write] = calls[1][2] as AttemptsWrite[];
    expect(write.recipients.map((r) => r.status)).toEqual(['bounced']);
    expect(write.message).toEqual({ kind: 'report', status: 'bounced', completedAt: AT });
  });

  it('answers moved false when the recipient’s state is not one the report moves from', async () => {
    const { service, calls } = fakes(delivered);
    expect(await service.recordReport(EM, ORG, report({ movesFrom: [] }))).toEqual({
      moved: false,
    });
    const [write] = calls[1][2] as AttemptsWrite[];
    expect(write.attempts).toHaveLength(1);
    expect(write.recipients).toEqual([]);
    expect(write.message).toBeNull();
  });

  it('of a message that is gone writes no row but still counts the bounce and raises the event', async () => {
    const { service, calls } = fakes(null);
    expect(await service.recordReport(EM, ORG, report())).toBeNull();
    expect(calls.map((c) => c[0])).toEqual(['lock', 'bounces', 'events']);
  });
});
