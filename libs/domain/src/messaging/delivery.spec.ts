import { summariseRecipients } from './delivery.service';
import type { RecipientState } from './message.repository';
import { recipientResults, SmtpOutbound } from './smtp-outbound';
import type { AppConfig } from '../config/app-config';

const now = new Date('2030-01-01T00:00:00Z');
const r = (
  status: RecipientState['status'],
  extra: Partial<RecipientState> = {},
): RecipientState => ({
  idx: 0,
  kind: 'to',
  email: 'a@example.test',
  status,
  retryCount: 1,
  nextAttemptAt: null,
  firstAttemptAt: now,
  ...extra,
});

describe('summariseRecipients', () => {
  it('derives the message status from its recipients', () => {
    expect(summariseRecipients([r('delivered'), r('delivered')], now).status).toBe('delivered');
    expect(summariseRecipients([r('delivered'), r('bounced')], now).status).toBe(
      'partially_delivered',
    );
    expect(summariseRecipients([r('suppressed')], now).status).toBe('suppressed');
    expect(summariseRecipients([r('bounced'), r('failed')], now).status).toBe('bounced');
    expect(summariseRecipients([r('failed'), r('suppressed')], now).status).toBe('failed');
    const later = new Date(now.getTime() + 60_000);
    const open = summariseRecipients(
      [r('delivered'), r('deferred', { nextAttemptAt: later })],
      now,
    );
    expect(open).toEqual({ status: 'deferred', nextAttemptAt: later, completedAt: null });
    expect(
      summariseRecipients([r('pending', { retryCount: 0, firstAttemptAt: null })], now).status,
    ).toBe('queued');
  });
});

describe('recipientResults', () => {
  it('maps accepted, rejected and whole-transaction answers to recipients', () => {
    const ok = recipientResults(
      ['a@x.test', 'B@x.test'],
      {
        info: {
          response: '250 2.0.0 queued',
          rejectedErrors: [
            { recipient: 'b@x.test', responseCode: 550, response: '550 5.1.1 unknown' },
          ],
        },
      },
      'mx.x.test',
      '192.0.2.1',
    );
    expect(ok.map((o) => [o.email, o.code])).toEqual([
      ['a@x.test', 250],
      ['B@x.test', 550],
    ]);
    expect(ok[0]).toMatchObject({ mxHost: 'mx.x.test', outboundIp: '192.0.2.1' });
    const down = recipientResults(
      ['a@x.test'],
      { err: { code: 'ESOCKET', message: 'connect ECONNREFUSED' } },
      'h',
      null,
    );
    expect(down[0]).toMatchObject({ code: null, message: 'ESOCKET: connect ECONNREFUSED' });
    const data = recipientResults(
      ['a@x.test'],
      { err: { message: 'Message failed', responseCode: 452, response: '452 full' } },
      'h',
      null,
    );
    expect(data[0]).toMatchObject({ code: 452, message: '452 full' });
  });
});

describe(SmtpOutbound.name, () => {
  const config = { smtpOutboundUrl: undefined, smtpOutboundPoolSize: 1 } as unknown as AppConfig;

  it('orders MX hosts by preference and falls back to the domain without MX', async () => {
    const outbound = new SmtpOutbound(config, {
      resolveMx: async (d: string) => {
        if (d === 'nomx.test') throw Object.assign(new Error('no data'), { code: 'ENODATA' });
        return [
          { exchange: 'mx2.test', priority: 20 },
          { exchange: 'mx1.test', priority: 10 },
        ];
      },
    });
    expect(await outbound.mxHosts('x.test')).toEqual(['mx1.test', 'mx2.test']);
    expect(await outbound.mxHosts('nomx.test')).toEqual(['nomx.test']);
  });
});
