// §16: delivery straight to a recipient domain's MX refuses MX hosts that resolve to loopback,
// private or link-local addresses, like a webhook target, unless DELIVERY_ALLOW_PRIVATE_MX=true;
// allowed, it connects to the address it checked. MX records come from a real DNS server on
// loopback (DNS_SERVERS); the MX host listens on 127.0.0.1:25.
import { INestApplication } from '@nestjs/common';
import { TestingModule } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { createTestApp } from '../support/app';
import { startDnsServer, TestDnsServer } from '../support/dns-server';
import { createSession, Session } from '../support/session';
import { startSmtpSink, SmtpSink } from './support/smtp-sink';
import { basicEmail, sendingEnv, startWorker, waitForMessage } from './support/sending';

describe('Direct MX delivery and private addresses (e2e)', () => {
  let dns: TestDnsServer;
  let mx: SmtpSink;
  let app: INestApplication | undefined;
  let worker: TestingModule | undefined;
  let s: Session;

  beforeAll(async () => {
    dns = await startDnsServer();
    dns
      .set('guarded.test', [{ type: 'MX', data: { preference: 10, exchange: 'mx.guarded.test' } }])
      .set('mx.guarded.test', [{ type: 'A', data: '127.0.0.1' }])
      .set('two.test', [
        { type: 'MX', data: { preference: 10, exchange: 'mx1.two.test' } },
        { type: 'MX', data: { preference: 20, exchange: 'mx2.two.test' } },
      ])
      .set('mx1.two.test', [{ type: 'AAAA', data: 'fe80::1' }])
      .set('mx2.two.test', [{ type: 'A', data: '10.1.2.3' }])
      // No MX record: the domain's own address is its mail server (RFC 5321 §5.1).
      .set('bare.test', [{ type: 'A', data: '169.254.169.254' }]);
    mx = await startSmtpSink(25);
  });
  afterAll(async () => {
    await worker?.close();
    await app?.close();
    await mx.close();
    await dns.stop();
  });

  async function start(vars: Record<string, string | undefined>) {
    await worker?.close();
    await app?.close();
    sendingEnv({ SMTP_OUTBOUND_URL: undefined, DNS_SERVERS: dns.address, ...vars });
    app = await createTestApp();
    worker = await startWorker();
    s = await createSession(app, { plan: 'pro' });
  }

  async function send(to: string) {
    const res = await s.http.post('/api/v1/send', basicEmail({ to })).expect(202);
    return waitForMessage(s.http, res.body.data.jobId, (m) => m.deliveryAttempts.length > 0);
  }

  it('fails a recipient whose MX hosts are all private, without connecting or retrying', async () => {
    await start({ DELIVERY_ALLOW_PRIVATE_MX: undefined });
    const cases: [string, string, string][] = [
      [
        'user@guarded.test',
        'mx.guarded.test',
        'Refused: mail server mx.guarded.test is 127.0.0.1, a loopback address',
      ],
      // Every MX is tried in order of preference; the first refusal is reported.
      [
        'user@two.test',
        'mx1.two.test',
        'Refused: mail server mx1.two.test is fe80::1, a link-local address',
      ],
      [
        'user@bare.test',
        'bare.test',
        'Refused: mail server bare.test is 169.254.169.254, a link-local address',
      ],
    ];
    for (const [to, mxHost, smtpMessage] of cases) {
      const log = await send(to);
      expect(log.status).toBe('failed');
      expect(log.deliveryAttempts).toEqual([
        expect.objectContaining({
          recipient: to,
          status: 'failed',
          smtpCode: null,
          smtpMessage,
          mxHost,
        }),
      ]);
    }
    expect(mx.rcptSeen).toEqual([]);
    expect(dns.queries).toEqual(expect.arrayContaining(['mx1.two.test AAAA', 'mx2.two.test A']));
    const [{ open }] = await app!
      .get(DataSource)
      .query(
        `SELECT count(*)::int AS open FROM messages WHERE organization_id = $1 AND next_attempt_at IS NOT NULL`,
        [s.org.id],
      );
    expect(open).toBe(0);
  });

  it('delivers to a private MX when DELIVERY_ALLOW_PRIVATE_MX=true, at the address it resolved', async () => {
    await start({ DELIVERY_ALLOW_PRIVATE_MX: 'true' });
    const log = await send('user@guarded.test');
    expect(log.deliveryAttempts).toEqual([
      expect.objectContaining({ status: 'delivered', smtpCode: 250, mxHost: 'mx.guarded.test' }),
    ]);
    // Only the test DNS server knows mx.guarded.test: the SMTP client was handed the address.
    expect(mx.messages.map((m) => m.to)).toEqual([['user@guarded.test']]);
    expect(dns.queries).toContain('mx.guarded.test A');
  });
});
