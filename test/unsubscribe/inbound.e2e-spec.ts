// Bounces and complaints that arrive as mail (§14), end to end: DSNs shaped like Postfix's and
// Exchange's and an RFC 5965 feedback report, sent over SMTP to the relay's real inbound port, are
// committed before 250 and processed by the real worker: attempts on the message, ContactEmail
// status, list memberships and webhooks at a real receiver. Reports change state only through a
// token we signed (the VERP address they arrive at, an ARF's quoted Return-Path or List-Unsubscribe),
// for the recipient the token names, once per report; a forged report naming another
// organization's Message-ID changes nothing. The port takes only our addresses, without AUTH; a
// report answered 250 survives a stopped worker and a flush of its jobs.
import { randomUUID } from 'node:crypto';
import nodemailer from 'nodemailer';
import { UnsubscribeTokens, loadConfig } from '@app/domain';
import { startWorker, waitForMessage } from '../sending/support/sending';
import { flushQueues } from '../support/redis';
import { holdsFor, waitFor } from '../support/wait-for';
import { spawnWorker } from '../sending/support/worker-process';
import { createSession, Session } from '../support/session';
import { fixture } from './support/fixtures';
import {
  BOUNCE_DOMAIN,
  createContact,
  createList,
  emailState,
  inboundRows,
  memberships,
  received,
  sendInbound,
  sendInboundTo,
  Stack,
  startStack,
  stopStack,
  waitForEvent,
  WEBHOOK_EVENTS,
} from './support/stack';

type SmtpFailure = Error & { responseCode?: number };

describe('Inbound bounces and complaints', () => {
  let stack: Stack;
  let listA: string;
  let listB: string;

  beforeAll(async () => {
    stack = await startStack();
    listA = await createList(stack, stack.s.org.id, 'News');
    listB = await createList(stack, stack.s.org.id, 'Offers');
  });
  afterAll(() => stopStack(stack));

  /** A contact on both lists and a message delivered to it; its ids and Message-ID. */
  async function delivered(s: Session = stack.s, lists = [listA, listB], email?: string) {
    const address = email ?? `c-${randomUUID().slice(0, 8)}@example.org`;
    const contactId = await createContact(stack, s.org.id, address, lists);
    const res = await s.http
      .post('/api/v1/send', {
        from: 'Shop <news@shop.example>',
        to: address,
        subject: 'Twenty percent off',
        text: 'Hello',
        contactId,
        listUnsubscribe: true,
      })
      .expect(202);
    const { jobId, messageId } = res.body.data as { jobId: string; messageId: string };
    await waitForMessage(s.http, jobId, (m) => m.status === 'delivered');
    const sent = stack.sink.messages.find((m) => m.parsed.messageId === messageId)!;
    const listUnsubscribe = sent.parsed.headerLines
      .find((h) => h.key === 'list-unsubscribe')!
      .line.replace(/^List-Unsubscribe:\s*/i, '');
    // The envelope sender the message went out with: its genuine VERP address.
    return { address, contactId, jobId, messageId, listUnsubscribe, verp: sent.from };
  }

  const fbl = `fbl@${BOUNCE_DOMAIN}`;

  async function processed(recipient: string) {
    return waitFor(
      async () => {
        const [row] = await inboundRows(stack, recipient);
        return row?.status === 'processed' ? row : null;
      },
      { what: `inbound mail to ${recipient} processed`, timeoutMs: 20_000 },
    );
  }

  it.each([
    ['postfix-dsn', '5.1.1'],
    ['exchange-dsn', '5.1.10'],
  ] as const)(
    'a DSN like %s sends bounces the message, sets the ContactEmail bounced, raises email.bounced',
    async (name, status) => {
      const m = await delivered();
      const to = m.verp;
      const raw = fixture(name, {
        MESSAGE_ID: m.messageId,
        RECIPIENT: m.address,
        BOUNCE_ADDRESS: to,
      });
      expect(await sendInbound(stack, to, raw)).toMatch(/^250 /);
      expect(await processed(to)).toMatchObject({
        outcome: 'bounced',
        organization_id: stack.s.org.id,
      });
      const message = await waitForMessage(stack.s.http, m.jobId, (x) => x.status === 'bounced');
      expect(message.deliveryAttempts.map((a) => a.status)).toEqual(['delivered', 'bounced']);
      expect(message.deliveryAttempts[1]).toMatchObject({
        recipient: m.address,
        smtpCode: 550,
        smtpMessage: expect.stringContaining(status),
      });
      expect(await emailState(stack, stack.s.org.id, m.address)).toMatchObject({
        status: 'bounced',
        bounce_count: 1,
      });
      const event = await waitForEvent(stack, 'email.bounced', (d) => d.jobId === m.jobId);
      expect(event).toMatchObject({
        messageId: m.messageId,
        recipient: m.address,
        contactId: m.contactId,
        status: 'bounced',
        bounceType: 'hard',
        smtpCode: 550,
      });
    },
  );

  it('a DSN to the envelope sender is matched by its VERP token, whatever Message-ID it quotes', async () => {
    const m = await delivered();
    expect(m.verp).toMatch(new RegExp(`^bounces\\+[0-9a-f]{52}@${BOUNCE_DOMAIN}$`));
    // The report quotes no Message-ID of ours: only the token can name the message.
    const report = fixture('postfix-dsn', {
      MESSAGE_ID: `<${randomUUID()}@elsewhere.example>`,
      RECIPIENT: m.address,
      BOUNCE_ADDRESS: m.verp,
    });
    expect(await sendInbound(stack, m.verp, report)).toMatch(/^250 /);
    expect(await processed(m.verp)).toMatchObject({
      outcome: 'bounced',
      organization_id: stack.s.org.id,
    });
    const message = await waitForMessage(stack.s.http, m.jobId, (x) => x.status === 'bounced');
    expect(message.deliveryAttempts.map((a) => a.status)).toEqual(['delivered', 'bounced']);
  });

  it('a 4.x.x delay warning records a deferred attempt only', async () => {
    const m = await delivered();
    const to = m.verp;
    await sendInbound(
      stack,
      to,
      fixture('postfix-delayed-dsn', {
        MESSAGE_ID: m.messageId,
        RECIPIENT: m.address,
        BOUNCE_ADDRESS: to,
      }),
    );
    expect(await processed(to)).toMatchObject({ outcome: 'deferred' });
    const message = await waitForMessage(stack.s.http, m.jobId, (x) =>
      x.deliveryAttempts.some((a) => a.status === 'deferred'),
    );
    expect(message.status).toBe('delivered');
    expect(message.deliveryAttempts.map((a) => a.status)).toEqual(['delivered', 'deferred']);
    expect(await emailState(stack, stack.s.org.id, m.address)).toMatchObject({
      status: 'verified',
      bounce_count: 0,
    });
    expect(await memberships(stack, m.contactId)).toEqual([
      expect.objectContaining({ status: 'subscribed' }),
      expect.objectContaining({ status: 'subscribed' }),
    ]);
  });

  it('an ARF complaint: complained, suppressed, unsubscribed everywhere, email.complained', async () => {
    const m = await delivered();
    const raw = fixture('arf-abuse', {
      MESSAGE_ID: m.messageId,
      RECIPIENT: m.address,
      FEEDBACK_ADDRESS: fbl,
      LIST_UNSUBSCRIBE: m.listUnsubscribe,
    });
    const to = fbl;
    expect(await sendInbound(stack, to, raw)).toMatch(/^250 /);
    await waitFor(
      async () => (await emailState(stack, stack.s.org.id, m.address)).status === 'complained',
      { what: 'complained', timeoutMs: 20_000 },
    );
    expect(await emailState(stack, stack.s.org.id, m.address)).toMatchObject({
      complaint_count: 1,
    });
    expect(
      (await memberships(stack, m.contactId)).map((r) => [r.status, r.unsubscribe_reason]),
    ).toEqual([
      ['unsubscribed', 'complaint'],
      ['unsubscribed', 'complaint'],
    ]);
    const event = await waitForEvent(stack, 'email.complained', (d) => d.jobId === m.jobId);
    expect(event).toMatchObject({
      messageId: m.messageId,
      recipient: m.address,
      contactId: m.contactId,
      feedbackType: 'abuse',
      reportedBy: 'SomeGenerator/1.0',
    });
    await waitForEvent(
      stack,
      'contact.unsubscribed',
      (d) => d.contactId === m.contactId && d.reason === 'complaint',
    );
    await waitForMessage(stack.s.http, m.jobId, (x) =>
      x.engagementEvents.some((e) => e.type === 'complained' && e.recipient === m.address),
    );
    // A later send to that address is suppressed.
    const again = await stack.s.http
      .post('/api/v1/send', {
        from: 'Shop <news@shop.example>',
        to: m.address,
        subject: 'Again',
        text: 'Hello again',
      })
      .expect(202);
    const later = await waitForMessage(
      stack.s.http,
      again.body.data.jobId,
      (x) => x.deliveryAttempts.length > 0,
    );
    expect(later.deliveryAttempts.map((a) => a.status)).toEqual(['suppressed']);
  });

  it('a redacted complaint is matched by the token of its List-Unsubscribe header', async () => {
    const m = await delivered();
    const raw = fixture('arf-abuse', {
      MESSAGE_ID: '<redacted@feedback.example.com>',
      RECIPIENT: 'redacted@example.com',
      LIST_UNSUBSCRIBE: m.listUnsubscribe,
    })
      .toString()
      .replace(/^Original-Rcpt-To:.*\r\n/m, '');
    await sendInbound(stack, fbl, Buffer.from(raw));
    await waitFor(
      async () => (await emailState(stack, stack.s.org.id, m.address)).status === 'complained',
      { what: 'complained', timeoutMs: 20_000 },
    );
  });

  it('mail to unsubscribe+<token>@ acts as the one-click POST', async () => {
    const m = await delivered();
    const mailto = /<mailto:([^>]+)>/.exec(m.listUnsubscribe)![1];
    expect(mailto).toMatch(new RegExp(`^unsubscribe\\+[0-9a-z]{46}@${BOUNCE_DOMAIN}$`));
    await sendInbound(stack, mailto, Buffer.from('Subject: unsubscribe\r\n\r\n\r\n'));
    expect(await processed(mailto)).toMatchObject({ outcome: 'unsubscribed' });
    expect((await memberships(stack, m.contactId)).map((r) => r.unsubscribe_reason)).toEqual([
      'one-click',
      'one-click',
    ]);
    await waitForEvent(stack, 'contact.unsubscribed', (d) => d.contactId === m.contactId);
  });

  it('keeps a report without a signed reference as unmatched', async () => {
    const raw = fixture('postfix-dsn', {
      MESSAGE_ID: `<${randomUUID()}@elsewhere.example>`,
      BOUNCE_ADDRESS: fbl,
    });
    await sendInbound(stack, fbl, raw);
    expect(await processed(fbl)).toEqual({
      status: 'processed',
      outcome: 'unmatched',
      organization_id: null,
    });
  });

  it('takes only our addresses, without AUTH, and relays nothing', async () => {
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: stack.inboundPort,
      secure: false,
      ignoreTLS: true,
    });
    try {
      for (const to of [
        'someone@example.com',
        `bounces@${BOUNCE_DOMAIN}`,
        'bounces+x@other.example',
        `bounces+x@sub.${BOUNCE_DOMAIN}`,
      ]) {
        const err = await transport
          .sendMail({ envelope: { from: 'a@example.net', to: [to] }, raw: 'Subject: x\r\n\r\nx' })
          .then(
            () => null,
            (e: SmtpFailure) => e,
          );
        expect(err?.responseCode).toBe(550);
      }
    } finally {
      transport.close();
    }
    expect(await inboundRows(stack, 'someone@example.com')).toEqual([]);
    // postmaster@ (RFC 5321) is kept for the operator and changes nothing.
    const postmaster = `postmaster@${BOUNCE_DOMAIN}`;
    await sendInbound(stack, postmaster, Buffer.from(`Subject: ${randomUUID()}\r\n\r\nhi\r\n`));
    expect(await processed(postmaster)).toMatchObject({ outcome: 'operator' });
  });

  it('keeps a report answered 250 through a killed worker and a flush of its jobs', async () => {
    const first = await delivered();
    const second = await delivered();
    const dsn = (m: typeof first, to: string) =>
      fixture('postfix-dsn', { MESSAGE_ID: m.messageId, RECIPIENT: m.address, BOUNCE_ADDRESS: to });
    // A real worker process takes over, and shows it works by processing one report.
    await stack.worker!.close();
    stack.worker = null;
    const proc = await spawnWorker();
    try {
      const to = first.verp;
      await sendInbound(stack, to, dsn(first, to));
      expect(await processed(to)).toMatchObject({ outcome: 'bounced' });
      await proc.kill();
      // No worker now: the next report is answered 250 from PostgreSQL alone, and its job lost.
      const next = second.verp;
      expect(await sendInbound(stack, next, dsn(second, next))).toMatch(/^250 /);
      expect(await flushQueues()).toBeGreaterThan(0);
      expect((await inboundRows(stack, next))[0].status).toBe('received');
    } finally {
      await proc.kill();
      stack.worker = await startWorker();
    }
    await waitForMessage(stack.s.http, second.jobId, (x) => x.status === 'bounced', 20_000);
    // A cold start of the worker process compiles its sources first.
  }, 180_000);

  it("one organization's report never changes another's data", async () => {
    // B has a contact with the same address, on a list of its own.
    const b = await createSession(stack.app, { plan: 'pro' });
    const bList = await createList(stack, b.org.id, 'B news');
    const m = await delivered();
    const bContact = await createContact(stack, b.org.id, m.address, [bList]);
    const to = m.verp;
    await sendInbound(
      stack,
      to,
      fixture('postfix-dsn', { MESSAGE_ID: m.messageId, RECIPIENT: m.address, BOUNCE_ADDRESS: to }),
    );
    await sendInbound(
      stack,
      fbl,
      fixture('arf-abuse', {
        MESSAGE_ID: m.messageId,
        RECIPIENT: m.address,
        LIST_UNSUBSCRIBE: m.listUnsubscribe,
      }),
    );
    await waitFor(
      async () => (await emailState(stack, stack.s.org.id, m.address)).status === 'complained',
      { what: 'complained', timeoutMs: 20_000 },
    );
    expect(await emailState(stack, b.org.id, m.address)).toMatchObject({
      status: 'verified',
      bounce_count: 0,
      complaint_count: 0,
    });
    expect((await memberships(stack, bContact)).map((r) => r.status)).toEqual(['subscribed']);
    // A token of A names A's message whoever uses it: B's key cannot see that message either.
    const token = new UnsubscribeTokens([loadConfig().encryptionKey]).sign(m.jobId);
    expect(m.listUnsubscribe).toContain(token!);
    await b.http.get(`/api/v1/user/messages/${m.jobId}`).expect(404);
  });

  describe('trusts only what we signed', () => {
    /** The attempts of a message, straight from the log. */
    async function attempts(jobId: string): Promise<string[]> {
      const rows: { status: string }[] = await stack.ds.query(
        `SELECT a.status FROM message_attempts a JOIN messages m ON m.id = a.message_id
          WHERE m.job_id = $1 ORDER BY a.attempted_at, a.id`,
        [jobId],
      );
      return rows.map((r) => r.status);
    }

    /** Waits for the inbound row of `recipient` whose raw bytes are `raw`. */
    async function processedRaw(raw: Buffer) {
      return waitFor(
        async () => {
          const [row]: { status: string; outcome: string; organization_id: string | null }[] =
            await stack.ds.query(
              `SELECT status, outcome, organization_id FROM inbound_messages
                WHERE raw_sha256 = digest($1::bytea, 'sha256')`,
              [raw],
            );
          return row?.status === 'processed' ? row : null;
        },
        { what: 'inbound mail processed', timeoutMs: 20_000 },
      );
    }

    /** Another organization's contact and a message delivered to it, with a webhook endpoint. */
    async function victim() {
      const b = await createSession(stack.app, { plan: 'pro' });
      await b.http
        .post('/api/v1/user/webhook-endpoints', { url: stack.receiver.url, events: WEBHOOK_EVENTS })
        .expect(201);
      const list = await createList(stack, b.org.id, 'Victim news');
      return { b, m: await delivered(b, [list]) };
    }

    it("a forged DSN naming another organization's Message-ID changes nothing for it", async () => {
      const { b, m: v } = await victim();
      const own = await delivered();
      // Sent to the attacker's own genuine VERP address and to fbl@, quoting the victim's message.
      const raw = fixture('postfix-dsn', {
        MESSAGE_ID: v.messageId,
        RECIPIENT: v.address,
        BOUNCE_ADDRESS: own.verp,
      });
      expect(await sendInboundTo(stack, [fbl, own.verp], raw)).toMatch(/^250 /);
      // The token names the attacker's own recipient: that is all the report can touch.
      expect(await processedRaw(raw)).toMatchObject({
        outcome: 'bounced',
        organization_id: stack.s.org.id,
      });
      expect(await attempts(own.jobId)).toEqual(['delivered', 'bounced']);
      await waitForEvent(stack, 'email.bounced', (d) => d.jobId === own.jobId);
      expect(await attempts(v.jobId)).toEqual(['delivered']);
      expect(await emailState(stack, b.org.id, v.address)).toMatchObject({
        status: 'verified',
        bounce_count: 0,
      });
      expect(received(stack, 'email.bounced', (d) => d.jobId === v.jobId)).toEqual([]);
      expect(received(stack, 'email.deferred', (d) => d.jobId === v.jobId)).toEqual([]);
    });

    it('a forged ARF naming a real Message-ID changes nothing and is kept unmatched', async () => {
      const m = await delivered();
      const raw = fixture('arf-abuse', {
        MESSAGE_ID: m.messageId,
        RECIPIENT: m.address,
        BOUNCE_ADDRESS: `bounces+${'0'.repeat(52)}@${BOUNCE_DOMAIN}`,
        LIST_UNSUBSCRIBE: `<https://shop.example/unsubscribe/${randomUUID()}>`,
      });
      await sendInbound(stack, fbl, raw);
      expect(await processedRaw(raw)).toEqual({
        status: 'processed',
        outcome: 'unmatched',
        organization_id: null,
      });
      expect(await emailState(stack, stack.s.org.id, m.address)).toMatchObject({
        status: 'verified',
        complaint_count: 0,
      });
      expect((await memberships(stack, m.contactId)).map((r) => r.status)).toEqual([
        'subscribed',
        'subscribed',
      ]);
      expect(received(stack, 'email.complained', (d) => d.jobId === m.jobId)).toEqual([]);
    });

    it("an ARF complains exactly the recipient its signed token names, not Original-Rcpt-To's", async () => {
      const named = await delivered();
      const byReturnPath = await delivered();
      const byList = await delivered();
      const arf = (values: Parameters<typeof fixture>[1], returnPath?: string) => {
        const text = fixture('arf-abuse', {
          MESSAGE_ID: named.messageId,
          RECIPIENT: named.address,
          BOUNCE_ADDRESS: `bounces+${'0'.repeat(52)}@${BOUNCE_DOMAIN}`,
          ...values,
        }).toString();
        return Buffer.from(
          returnPath
            ? text.replace(/^Received: from mail/m, `Return-Path: <${returnPath}>\r\n$&`)
            : text,
        );
      };
      const first = arf({}, byReturnPath.verp);
      const second = arf({ LIST_UNSUBSCRIBE: byList.listUnsubscribe });
      await sendInbound(stack, fbl, first);
      await sendInbound(stack, fbl, second);
      expect(await processedRaw(first)).toMatchObject({ outcome: 'complained' });
      expect(await processedRaw(second)).toMatchObject({ outcome: 'complained' });
      for (const m of [byReturnPath, byList]) {
        expect(await emailState(stack, stack.s.org.id, m.address)).toMatchObject({
          status: 'complained',
          complaint_count: 1,
        });
        const event = await waitForEvent(stack, 'email.complained', (d) => d.jobId === m.jobId);
        expect(event).toMatchObject({ recipient: m.address, contactId: m.contactId });
      }
      expect(await emailState(stack, stack.s.org.id, named.address)).toMatchObject({
        status: 'verified',
        complaint_count: 0,
      });
      expect(received(stack, 'email.complained', (d) => d.jobId === named.jobId)).toEqual([]);
    });

    it('a DSN of forty identical groups records one attempt and one email.bounced', async () => {
      const m = await delivered();
      const text = fixture('postfix-dsn', {
        MESSAGE_ID: m.messageId,
        RECIPIENT: m.address,
        BOUNCE_ADDRESS: m.verp,
      }).toString();
      const groupAt = text.indexOf('Final-Recipient:');
      const groupEnd = text.indexOf('\r\n\r\n', groupAt) + 4;
      const group = text.slice(groupAt, groupEnd);
      const raw = Buffer.from(text.slice(0, groupAt) + group.repeat(40) + text.slice(groupEnd));
      await sendInbound(stack, m.verp, raw);
      expect(await processedRaw(raw)).toMatchObject({ outcome: 'bounced' });
      expect(await attempts(m.jobId)).toEqual(['delivered', 'bounced']);
      expect(await emailState(stack, stack.s.org.id, m.address)).toMatchObject({ bounce_count: 1 });
      await waitForEvent(stack, 'email.bounced', (d) => d.jobId === m.jobId);
      // Deliveries of a transaction's events go out together: no straggler follows.
      await holdsFor(
        () => expect(received(stack, 'email.bounced', (d) => d.jobId === m.jobId)).toHaveLength(1),
        { forMs: 1000 },
      );
    });

    it('a replayed report (identical bytes) changes nothing the second time', async () => {
      const m = await delivered();
      const raw = fixture('postfix-dsn', {
        MESSAGE_ID: m.messageId,
        RECIPIENT: m.address,
        BOUNCE_ADDRESS: m.verp,
      });
      await sendInbound(stack, m.verp, raw);
      await processedRaw(raw);
      await waitForEvent(stack, 'email.bounced', (d) => d.jobId === m.jobId);
      expect(await sendInboundTo(stack, [m.verp, fbl], raw)).toMatch(/^250 /);
      // Through several worker polls, still the one row and the one bounce.
      await holdsFor(
        async () => {
          expect(await inboundRows(stack, m.verp)).toHaveLength(1);
          expect(await attempts(m.jobId)).toEqual(['delivered', 'bounced']);
          expect(await emailState(stack, stack.s.org.id, m.address)).toMatchObject({
            bounce_count: 1,
          });
          expect(received(stack, 'email.bounced', (d) => d.jobId === m.jobId)).toHaveLength(1);
        },
        { forMs: 1500, everyMs: 250 },
      );
    });
  });
});
