// The relay's author rule (§16) end to end: a relayed message whose author is ambiguous (a second
// From field, a From of several mailboxes, with or without a Sender) is refused 550 5.7.1, and
// nothing of it is stored or sent; a message From one verified mailbox goes out signed for exactly
// that domain. The send API cannot smuggle a second From either.
import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SmtpSink } from '../sending/support/smtp-sink';
import type { TestDnsServer } from '../support/dns-server';
import { SigningStack, startSigningStack } from '../sending-domains/signing-stack';
import { createSession, Session } from '../support/session';
import { waitFor } from '../support/wait-for';
import { authenticateMessage, uniqueDomain, verifiedDomain } from '../sending-domains/support';
import { RawSmtp, Reply } from './support/raw-smtp';

describe('Relay: one author per message', () => {
  let stack: SigningStack;
  let dns: TestDnsServer;
  let sink: SmtpSink;
  let app: INestApplication;
  let s: Session;
  // Named before the tests are declared (it.each reads them); verified in beforeAll.
  const shop = uniqueDomain('shop');
  const news = uniqueDomain('news');
  const foreign = uniqueDomain('bank');

  beforeAll(async () => {
    stack = await startSigningStack({ policy: 'require', name: 'relay-from' });
    ({ dns, sink, app } = stack);
    s = await createSession(app, { plan: 'pro' });
    await verifiedDomain(s.http, dns, shop);
    await verifiedDomain(s.http, dns, news);
  });
  afterAll(() => stack.close());

  const stored = async (): Promise<number> =>
    (
      await app
        .get(DataSource)
        .query(`SELECT count(*)::int AS n FROM messages WHERE organization_id = $1`, [s.org.id])
    )[0].n as number;

  /** One relay transaction with the envelope under the verified domain; the reply to DATA. */
  async function relayMessage(header: string, subject: string): Promise<Reply> {
    const c = await RawSmtp.authenticated(stack.relayPort(), s.apiKey);
    await c.expect(`MAIL FROM:<bounce@${shop}>`, 250);
    await c.expect('RCPT TO:<reader@example.test>', 250);
    await c.expect('DATA', 354);
    await c.write(
      `${header}To: reader@example.test\r\nSubject: ${subject}\r\n\r\nBody of ${subject}\r\n.\r\n`,
    );
    const reply = await c.reply();
    await c.quit();
    return reply;
  }

  it.each([
    [
      'a second, foreign From field',
      `From: me@${shop}\r\nFrom: ceo@${foreign}\r\n`,
      '5.7.1 Message has more than one From header field',
    ],
    [
      'a second From field of another verified domain',
      `From: me@${shop}\r\nFrom: me@${news}\r\n`,
      '5.7.1 Message has more than one From header field',
    ],
    [
      'a From of two mailboxes without Sender',
      `From: me@${shop}, ceo@${foreign}\r\n`,
      '5.7.1 From must name exactly one mailbox',
    ],
    [
      // RFC 5322 allows it with one Sender, but DMARC judges each author domain and a signature
      // names one: the relay refuses it whatever the domains.
      'a From of two verified mailboxes with one verified Sender',
      `From: me@${shop}, you@${news}\r\nSender: me@${shop}\r\n`,
      '5.7.1 From must name exactly one mailbox',
    ],
  ])('refuses %s with 550 5.7.1, storing and sending nothing', async (_name, header, text) => {
    const before = await stored();
    const subject = `Refused ${_name}`;
    expect(await relayMessage(header, subject)).toEqual({ code: 550, text });
    expect(await stored()).toBe(before);
    expect(sink.messages.filter((m) => m.parsed.subject === subject)).toEqual([]);
  });

  it('signs a From of one verified mailbox for that domain, whatever the envelope says', async () => {
    const reply = await relayMessage(`From: Me <me@${news}>\r\n`, 'One author');
    expect(reply.code).toBe(250);
    const m = await waitFor(() => sink.messages.find((x) => x.parsed.subject === 'One author'), {
      what: 'the relayed message at the sink',
    });
    const result = await authenticateMessage(dns, m.raw, m.from);
    expect(result.dkim.results).toHaveLength(1);
    expect(result.dkim.results[0]).toMatchObject({
      signingDomain: news,
      status: { result: 'pass' },
    });
    expect(result.dmarc && result.dmarc.status.result).toBe('pass');
  });

  it('lets the send API name no second From: the headers object may not carry From or Sender', async () => {
    const before = await stored();
    for (const name of ['From', 'from', 'Sender']) {
      const res = await s.http
        .post('/api/v1/send', {
          from: `me@${shop}`,
          to: 'reader@example.test',
          subject: 'Smuggled',
          text: 'x',
          headers: { [name]: `ceo@${foreign}` },
        })
        .expect(422);
      expect(res.body.errors).toEqual([
        expect.objectContaining({ field: `headers.${name}`, rule: 'unknown' }),
      ]);
    }
    // `from` is one mailbox: a list in it is not an address.
    const list = await s.http
      .post('/api/v1/send', {
        from: `me@${shop}, ceo@${foreign}`,
        to: 'reader@example.test',
        subject: 'Smuggled',
        text: 'x',
      })
      .expect(422);
    expect(list.body.errors).toEqual([expect.objectContaining({ field: 'from' })]);
    expect(await stored()).toBe(before);
  });
});
