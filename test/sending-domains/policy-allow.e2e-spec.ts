// With SENDING_DOMAIN_POLICY=allow an unverified From is accepted by the
// send API and the relay and goes out unsigned, its envelope sender a VERP address at
// BOUNCE_DOMAIN; a From under a verified domain is still signed.
import { INestApplication } from '@nestjs/common';
import nodemailer from 'nodemailer';
import { waitFor } from '../support/wait-for';
import { SinkMessage, SmtpSink } from '../sending/support/smtp-sink';
import type { TestDnsServer } from '../support/dns-server';
import { SigningStack, startSigningStack } from './signing-stack';
import { createSession, Session } from '../support/session';
import { authenticateMessage, BOUNCE_DOMAIN, uniqueDomain, verifiedDomain } from './support';

describe('Sender policy allow', () => {
  let stack: SigningStack;
  let dns: TestDnsServer;
  let sink: SmtpSink;
  let app: INestApplication;
  let s: Session;

  beforeAll(async () => {
    stack = await startSigningStack({ policy: 'allow', name: 'allow' });
    ({ dns, sink, app } = stack);
    s = await createSession(app, { plan: 'pro' });
  });
  afterAll(() => stack.close());

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
      port: stack.relayPort(),
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
