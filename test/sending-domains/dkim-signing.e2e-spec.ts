// A message through each path (send API, campaign, relay) From a verified
// domain arrives at the sink DKIM-signed, and mailauth, asking the test DNS server, finds the
// signature `pass` with d= aligned to the From domain (a subdomain From included: relaxed
// alignment), the envelope sender being `bounces+<VERP token>@bounces.<domain>`. Under
// SENDING_DOMAIN_POLICY=require an unverified From is 409 on the API and campaign send and
// 550 5.7.1 on the relay; another organization cannot send as the domain.
import { INestApplication } from '@nestjs/common';
import nodemailer from 'nodemailer';
import { DataSource } from 'typeorm';
import { VerpTokens } from '@app/domain';
import { campaignBody, seedList } from '../campaigns/fixtures';
import { waitFor } from '../support/wait-for';
import { SinkMessage, SmtpSink } from '../sending/support/smtp-sink';
import type { TestDnsServer } from '../support/dns-server';
import { SigningStack, startSigningStack } from './signing-stack';
import { createSession, Session } from '../support/session';
import { authenticateMessage, DomainJson, uniqueDomain, verifiedDomain } from './support';

/** The tags of the message's DKIM-Signature header. */
function dkimTags(raw: string): Record<string, string> {
  const header = /^DKIM-Signature:((?:.*)(?:\r?\n[ \t].*)*)/im.exec(raw);
  if (!header) throw new Error('no DKIM-Signature header');
  const out: Record<string, string> = {};
  for (const part of header[1].replace(/\s+/g, '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out[part.slice(0, eq)] = part.slice(eq + 1);
  }
  return out;
}

describe('DKIM signing and the sender policy (require)', () => {
  let stack: SigningStack;
  let dns: TestDnsServer;
  let sink: SmtpSink;
  let app: INestApplication;
  let a: Session;
  let b: Session;
  let domain: DomainJson;

  beforeAll(async () => {
    stack = await startSigningStack({
      policy: 'require',
      name: 'dkim',
      env: { CAMPAIGN_POLL_INTERVAL_MS: '100' },
      beforeWorker: (app) =>
        app
          .get(DataSource)
          .query(`UPDATE messages SET next_attempt_at = NULL WHERE next_attempt_at IS NOT NULL`),
    });
    ({ dns, sink, app } = stack);
    a = await createSession(app, { plan: 'pro' });
    b = await createSession(app, { plan: 'pro' });
    domain = await verifiedDomain(a.http, dns, uniqueDomain('shop'));
  });
  afterAll(() => stack.close());

  const arrived = (subject: string, count = 1): Promise<SinkMessage[]> =>
    waitFor(
      async () => {
        const got = sink.messages.filter((m) => m.parsed.subject === subject);
        return got.length >= count ? got : null;
      },
      { what: `${count} message(s) "${subject}" at the sink` },
    );

  /** mailauth's verdict: one DKIM signature, pass, d= the domain, aligned; DMARC pass. */
  async function expectSignedBy(m: SinkMessage, d: DomainJson): Promise<void> {
    const result = await authenticateMessage(dns, m.raw, m.from);
    expect(result.dkim.results).toHaveLength(1);
    const [sig] = result.dkim.results;
    expect(sig.status.result).toBe('pass');
    expect(sig.signingDomain).toBe(d.name);
    expect(sig.selector).toBe(d.dkimSelector);
    expect(sig.status.aligned).toBeTruthy();
    expect(result.dmarc && result.dmarc.status.result).toBe('pass');
    const tags = dkimTags(m.raw);
    expect(tags).toMatchObject({ a: 'rsa-sha256', c: 'relaxed/relaxed', d: d.name });
    const signed = tags.h.toLowerCase().split(':');
    for (const h of ['from', 'to', 'subject', 'date', 'message-id', 'mime-version', 'content-type'])
      expect(signed).toContain(h);
    expect(m.from).toMatch(new RegExp(`^bounces\\+[0-9a-f]{52}@bounces\\.${d.name}$`));
  }

  it('signs a send API message: pass, aligned, VERP envelope sender naming message and recipient', async () => {
    const res = await a.http
      .post('/api/v1/send', {
        from: `Shop <news@${domain.name}>`,
        to: ['first@example.test', 'second@example.test'],
        subject: 'Signed over the API',
        html: '<p>Hello</p>',
        text: 'Hello',
      })
      .expect(202);
    const mails = await arrived('Signed over the API', 2);
    for (const m of mails) await expectSignedBy(m, domain);
    const [{ id }] = await app
      .get(DataSource)
      .query(`SELECT id FROM messages WHERE organization_id = $1 AND job_id = $2`, [
        a.org.id,
        res.body.data.jobId,
      ]);
    const verp = app.get(VerpTokens);
    const byRecipient = Object.fromEntries(mails.map((m) => [m.to[0], verp.verifyAddress(m.from)]));
    expect(byRecipient).toEqual({
      'first@example.test': { messageId: id, recipientIndex: 0 },
      'second@example.test': { messageId: id, recipientIndex: 1 },
    });
  });

  it('signs a subdomain From with d=<domain>, which passes relaxed alignment', async () => {
    await a.http
      .post('/api/v1/send', {
        from: `hello@news.${domain.name}`,
        to: 'reader@example.test',
        subject: 'From a subdomain',
        text: 'Hello from news',
      })
      .expect(202);
    const [m] = await arrived('From a subdomain');
    expect(m.parsed.from?.value[0].address).toBe(`hello@news.${domain.name}`);
    await expectSignedBy(m, domain);
  });

  it('signs campaign messages, their List-Unsubscribe headers included', async () => {
    const list = await seedList(app, a.org.id, { subscribed: 2 });
    const created = await a.http
      .post(
        '/api/v1/user/campaigns',
        campaignBody(list.listId, {
          subject: 'Signed campaign',
          from: `Shop <deals@${domain.name}>`,
        }),
      )
      .expect(201);
    await a.http.post(`/api/v1/user/campaigns/${created.body.data.id}/send`).expect(202);
    const mails = await arrived('Signed campaign', 2);
    for (const m of mails) {
      await expectSignedBy(m, domain);
      expect(m.raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$/m);
      expect(m.raw).toMatch(/^List-Unsubscribe:\s+<http[^>]+\/u\/[0-9a-z]{46}>,\s+<mailto:unsub/m);
      const signed = dkimTags(m.raw).h.toLowerCase().split(':');
      expect(signed).toEqual(expect.arrayContaining(['list-unsubscribe', 'list-unsubscribe-post']));
    }
  });

  it('signs relayed messages, prepending the signature and leaving the body as submitted', async () => {
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: stack.relayPort(),
      secure: false,
      ignoreTLS: true,
      auth: { user: 'relay', pass: a.apiKey },
    });
    await transport.sendMail({
      from: `Relay <relay@${domain.name}>`,
      to: 'relayed@example.test',
      subject: 'Signed relay',
      text: 'Relayed body, exactly as sent',
    });
    const [m] = await arrived('Signed relay');
    expect(m.raw.startsWith('DKIM-Signature:')).toBe(true);
    expect(m.parsed.text?.trim()).toBe('Relayed body, exactly as sent');
    await expectSignedBy(m, domain);
  });

  it('refuses an unverified From: 409 on the API and campaign send, 550 5.7.1 on the relay', async () => {
    const elsewhere = uniqueDomain('elsewhere');
    const messages = async () =>
      (
        await app
          .get(DataSource)
          .query(`SELECT count(*)::int AS n FROM messages WHERE organization_id = $1`, [a.org.id])
      )[0].n as number;
    const before = await messages();
    const api = await a.http
      .post('/api/v1/send', {
        from: `someone@${elsewhere}`,
        to: 'reader@example.test',
        subject: 'Refused',
        text: 'x',
      })
      .expect(409);
    expect(api.body).toEqual({
      success: false,
      message: `Sender domain is not verified: ${elsewhere}`,
      code: 'E_BUSINESS_RULE_VIOLATION',
    });
    // A domain of the organization that is not verified yet is refused the same way.
    const pending = await a.http
      .post('/api/v1/user/sending-domains', { name: uniqueDomain('pending') })
      .expect(201);
    await a.http
      .post('/api/v1/send', {
        from: `someone@${pending.body.data.name}`,
        to: 'reader@example.test',
        subject: 'Refused',
        text: 'x',
      })
      .expect(409);

    const list = await seedList(app, a.org.id, { subscribed: 1 });
    const campaign = await a.http
      .post('/api/v1/user/campaigns', campaignBody(list.listId, { from: `news@${elsewhere}` }))
      .expect(201);
    const send = await a.http
      .post(`/api/v1/user/campaigns/${campaign.body.data.id}/send`)
      .expect(409);
    expect(send.body).toMatchObject({
      code: 'E_BUSINESS_RULE_VIOLATION',
      message: `Sender domain is not verified: ${elsewhere}`,
    });
    const [{ status }] = await app
      .get(DataSource)
      .query(`SELECT status FROM campaigns WHERE id = $1`, [campaign.body.data.id]);
    expect(status).toBe('draft');

    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: stack.relayPort(),
      secure: false,
      ignoreTLS: true,
      auth: { user: 'relay', pass: a.apiKey },
    });
    const err = (await transport
      .sendMail({
        // The envelope sender is under the verified domain; the header From decides.
        envelope: { from: `bounce@${domain.name}`, to: ['reader@example.test'] },
        from: `someone@${elsewhere}`,
        to: 'reader@example.test',
        subject: 'Refused relay',
        text: 'x',
      })
      .catch((e: unknown) => e)) as { responseCode?: number; response?: string };
    expect(err.responseCode).toBe(550);
    expect(err.response).toContain('5.7.1 Sender domain is not verified');
    // Nothing refused was stored or sent.
    expect(await messages()).toBe(before);
  });

  it('lets no other organization see, verify or send as the domain', async () => {
    await b.http.get(`/api/v1/user/sending-domains/${domain.id}`).expect(404);
    await b.http.post(`/api/v1/user/sending-domains/${domain.id}/verify`).expect(404);
    await b.http.delete(`/api/v1/user/sending-domains/${domain.id}`).expect(404);
    const listed = await b.http.get('/api/v1/user/sending-domains').expect(200);
    expect(listed.body.data).toEqual([]);
    const res = await b.http
      .post('/api/v1/send', {
        from: `news@${domain.name}`,
        to: 'reader@example.test',
        subject: 'Not yours',
        text: 'x',
      })
      .expect(409);
    expect(res.body.message).toBe(`Sender domain is not verified: ${domain.name}`);
    await a.http.get(`/api/v1/user/sending-domains/${domain.id}`).expect(200);
  });
});
