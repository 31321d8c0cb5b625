// Issue 22 acceptance: with SENDING_DOMAIN_POLICY=allow an unverified From is accepted by the
// send API and the relay and goes out unsigned, its envelope sender a VERP address at
// BOUNCE_DOMAIN; a From under a verified domain is still signed.
import { INestApplication } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { JsonLogger } from '@app/domain';
import { SmtpRelayModule } from '../../apps/smtp-relay/src/smtp-relay.module';
import { SmtpRelayService } from '../../apps/smtp-relay/src/smtp-relay.service';
import { sendingEnv, startWorker } from '../sending/support/sending';
import { waitFor } from '../support/wait-for';
import { SinkMessage, SmtpSink, startSmtpSink } from '../sending/support/smtp-sink';
import { createTestApp } from '../support/app';
import { startDnsServer, TestDnsServer } from '../support/dns-server';
import { createSession, Session } from '../support/session';
import { authenticateMessage, BOUNCE_DOMAIN, uniqueDomain, verifiedDomain } from './support';

describe('Sender policy allow', () => {
  let dns: TestDnsServer;
  let sink: SmtpSink;
  let relay: TestingModule;
  let app: INestApplication;
  let worker: TestingModule;
  let s: Session;

  beforeAll(async () => {
    dns = await startDnsServer();
    sink = await startSmtpSink();
    sendingEnv({
      SMTP_OUTBOUND_URL: sink.url,
      SMTP_PORT: '0',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'mp-allow-')),
      DNS_SERVERS: dns.address,
      BOUNCE_DOMAIN,
      SENDING_DOMAIN_POLICY: 'allow',
    });
    relay = await Test.createTestingModule({ imports: [SmtpRelayModule] }).compile();
    relay.useLogger(new JsonLogger('relay-test', 'error'));
    await relay.init();
    app = await createTestApp();
    worker = await startWorker();
    s = await createSession(app, { plan: 'pro' });
  });
  afterAll(async () => {
    await worker.close();
    await relay.close();
    await app.close();
    await sink.close();
    await dns.stop();
    delete process.env.SENDING_DOMAIN_POLICY;
  });

  const arrived = (subject: string): Promise<SinkMessage> =>
    waitFor(async () => sink.messages.find((m) => m.parsed.subject === subject), {
      what: `"${subject}" at the sink`,
    });

  const unsigned = (m: SinkMessage) => {
    expect(m.raw).not.toMatch(/^DKIM-Signature:/im);
    expect(m.from).toMatch(new RegExp(`^bounces\\+[0-9a-f]{52}@${BOUNCE_DOMAIN}$`));
  };

  it('sends an unverified From over the API unsigned, enveloped at BOUNCE_DOMAIN', async () => {
    await s.http
      .post('/api/v1/send', {
        from: `someone@${uniqueDomain('unverified')}`,
        to: 'reader@example.test',
        subject: 'Allowed unsigned',
        text: 'Hello',
      })
      .expect(202);
    unsigned(await arrived('Allowed unsigned'));
  });

  it('relays an unverified From unsigned', async () => {
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: relay.get(SmtpRelayService).port,
      secure: false,
      ignoreTLS: true,
      auth: { user: 'relay', pass: s.apiKey },
    });
    const info = await transport.sendMail({
      from: `someone@${uniqueDomain('unverified')}`,
      to: 'reader@example.test',
      subject: 'Relayed unsigned',
      text: 'Hello',
    });
    expect(info.response).toMatch(/^250 OK job_/);
    unsigned(await arrived('Relayed unsigned'));
  });

  it('still signs a From under a verified domain', async () => {
    const domain = await verifiedDomain(s.http, dns, uniqueDomain('allowed'));
    await s.http
      .post('/api/v1/send', {
        from: `news@${domain.name}`,
        to: 'reader@example.test',
        subject: 'Allowed and signed',
        text: 'Hello',
      })
      .expect(202);
    const m = await arrived('Allowed and signed');
    const result = await authenticateMessage(dns, m.raw, m.from);
    expect(result.dkim.results.map((r) => [r.status.result, r.signingDomain])).toEqual([
      ['pass', domain.name],
    ]);
    expect(m.from).toMatch(new RegExp(`@bounces\\.${domain.name}$`));
  });
});
