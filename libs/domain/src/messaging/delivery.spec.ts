// Delivery's pure parts: a message's status, per-recipient SMTP results, MX choice and refusal.
import { Logger } from '@nestjs/common';
import { summariseRecipients } from './delivery-policy';
import type { RecipientState } from './message.types';
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
  const config = {
    smtpOutboundUrl: undefined,
    smtpOutboundPoolSize: 1,
    deliveryAllowPrivateMx: false,
  } as unknown as AppConfig;
  const lookups: string[] = [];
  const dns = {
    resolveMx: async (d: string) => {
      if (d === 'nomx.test') throw Object.assign(new Error('no data'), { code: 'ENODATA' });
      if (d === 'null.test') return [{ exchange: '', priority: 0 }];
      return [
        { exchange: 'mx2.test', priority: 20 },
        { exchange: 'mx1.test', priority: 10 },
      ];
    },
    lookup: async (host: string) => {
      lookups.push(host);
      if (host === 'mx1.test') return [{ address: '10.0.0.1', family: 4 }];
      if (host === 'mx2.test') return [{ address: '::ffff:127.0.0.1', family: 6 }];
      throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' });
    },
  };
  let outbound: SmtpOutbound;
  beforeAll(() => {
    // Nest's default logger would print the thread's debug line at shutdown.
    Logger.overrideLogger(['error']);
    outbound = new SmtpOutbound(config, dns);
  });
  afterAll(() => outbound.onModuleDestroy());

  it('orders MX hosts by preference and falls back to the domain without MX', async () => {
    expect(await outbound.mxHosts('x.test')).toEqual(['mx1.test', 'mx2.test']);
    expect(await outbound.mxHosts('nomx.test')).toEqual(['nomx.test']);
    expect(await outbound.mxHosts('null.test')).toEqual([]);
  });

  it('refuses MX hosts at private addresses before connecting, and a null MX', async () => {
    const [refused] = await outbound.send({ text: 'x' }, { from: 'a@s.test', to: ['u@x.test'] });
    expect(refused).toEqual({
      email: 'u@x.test',
      code: null,
      // Every MX was tried in order; the first refusal is reported.
      message: 'Refused: mail server mx1.test is 10.0.0.1, a private address',
      mxHost: 'mx1.test',
      outboundIp: null,
      refused: true,
    });
    expect(lookups).toEqual(['mx1.test', 'mx2.test']);
    const [none] = await outbound.send({ text: 'x' }, { from: 'a@s.test', to: ['u@null.test'] });
    expect(none).toMatchObject({
      refused: true,
      message: 'Refused: null.test accepts no mail (null MX)',
    });
    // A name that does not resolve may resolve later: deferred, not refused.
    const [later] = await outbound.send({ text: 'x' }, { from: 'a@s.test', to: ['u@nomx.test'] });
    expect(later).toMatchObject({ code: null, mxHost: 'nomx.test' });
    expect(later.refused).toBeUndefined();
  });

  it('answers for each recipient in the envelope order, whatever domains they are at', async () => {
    const to = ['a@x.test', 'b@null.test', 'c@x.test', 'd@nomx.test'];
    const results = await outbound.send({ text: 'x' }, { from: 'a@s.test', to });
    expect(results.map((r) => [r.email, r.mxHost])).toEqual([
      ['a@x.test', 'mx1.test'],
      ['b@null.test', null],
      ['c@x.test', 'mx1.test'],
      ['d@nomx.test', 'nomx.test'],
    ]);
  });
});
