// The SMTP relay end to end, with nodemailer as the client, a real smtp-server sink as the
// delivery target, the worker in-process and the api for the message log and the shared limits.
import { INestApplication } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import Redis from 'ioredis';
import { mkdtempSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { DataSource } from 'typeorm';
import {
  APP_CONFIG,
  Clock,
  fieldCipher,
  loadConfig,
  OrganizationService,
  setLogSink,
} from '@app/domain';
import { SmtpRelayModule } from '../../apps/smtp-relay/src/smtp-relay.module';
import { SmtpRelayService } from '../../apps/smtp-relay/src/smtp-relay.service';
import { createTestApp, testLogger } from '../support/app';
import { ManualClock } from '../support/clock';
import { flushQueues } from '../support/redis';
import { createKey, createSession, Session } from '../support/session';
import { waitFor } from '../support/wait-for';
import { basicEmail, sendingEnv, startWorker, waitForMessage } from '../sending/support/sending';
import { startSmtpSink, SmtpSink } from '../sending/support/smtp-sink';

type SmtpFailure = Error & { responseCode?: number; response?: string };

/** An address of this machine that is not loopback (the relay listens on every interface). */
function nonLoopbackAddress(): string {
  const found = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && !a.internal && a.family === 'IPv4');
  if (!found) throw new Error('this test needs a non-loopback IPv4 interface');
  return found.address;
}

const waitForLog = (lines: string[], msg: string) =>
  waitFor(() => lines.some((l) => l.includes(msg)), {
    what: `a log line "${msg}"`,
    timeoutMs: 5000,
  });

describe('SMTP relay', () => {
  let sink: SmtpSink;
  let relay: TestingModule;
  let worker: TestingModule | undefined;
  let app: INestApplication;
  let s: Session;
  let port: number;
  let dataDir: string;
  const logs: string[] = [];
  // Mid-minute, so a per-minute window never turns over inside a test.
  const clock = new ManualClock(new Date(Math.floor(Date.now() / 60_000) * 60_000 + 20_000));

  const transport = (pass: string, extra: Record<string, unknown> = {}) =>
    nodemailer.createTransport({
      host: '127.0.0.1',
      port,
      secure: false,
      ignoreTLS: true,
      auth: { user: 'anyone', pass },
      ...extra,
    });

  const mail = (to = 'someone@example.test', extra: Record<string, unknown> = {}) => ({
    from: 'Sender <sender@acme.test>',
    to,
    subject: 'Relayed',
    text: 'Hello over SMTP',
    ...extra,
  });

  async function refusal(promise: Promise<unknown>): Promise<SmtpFailure> {
    try {
      await promise;
    } catch (err) {
      return err as SmtpFailure;
    }
    throw new Error('expected the relay to refuse');
  }

  beforeAll(async () => {
    // The relay logs at warn (a test reads its warnings); the lines stay here, not on the console.
    setLogSink((line) => logs.push(line));
    sink = await startSmtpSink();
    dataDir = mkdtempSync(join(tmpdir(), 'mp-relay-'));
    sendingEnv({
      SMTP_OUTBOUND_URL: sink.url,
      SMTP_PORT: '0',
      DATA_DIR: dataDir,
      EMAIL_SWEEP_INTERVAL_MS: '200',
      EMAIL_SWEEP_GRACE_MS: '0',
    });
    relay = await Test.createTestingModule({ imports: [SmtpRelayModule] })
      .overrideProvider(Clock)
      .useValue(clock)
      .compile();
    relay.useLogger(testLogger('relay-test', 'warn'));
    await relay.init();
    port = relay.get(SmtpRelayService).port;
    app = await createTestApp({
      override: (b) => b.overrideProvider(Clock).useValue(clock),
      logLevel: 'warn',
    });
    s = await createSession(app, { plan: 'pro' });
  });
  afterAll(async () => {
    await worker?.close();
    await relay.close();
    await app.close();
    await sink.close();
    setLogSink((line) => process.stdout.write(line + '\n'));
  });

  describe('authentication', () => {
    it('accepts AUTH PLAIN and AUTH LOGIN with a messages:send key and answers 250 OK <jobId>', async () => {
      for (const method of ['PLAIN', 'LOGIN']) {
        const info = await transport(s.apiKey, {
          auth: { user: 'x', pass: s.apiKey, method },
        }).sendMail(mail());
        expect(info.response).toMatch(/^250 OK job_[0-9A-HJKMNP-TV-Z]{26}$/);
      }
    });

    it('refuses a wrong key and a key without messages:send with 535', async () => {
      const wrong = await refusal(transport('bk_live_' + 'Q'.repeat(40)).sendMail(mail()));
      expect(wrong.responseCode).toBe(535);
      const { value } = await createKey(app, s.org.id, { scopes: ['contacts:read'] });
      const noScope = await refusal(transport(value).sendMail(mail()));
      expect(noScope.responseCode).toBe(535);
    });

    it('refuses MAIL FROM without AUTH with 530', async () => {
      const anonymous = nodemailer.createTransport({
        host: '127.0.0.1',
        port,
        secure: false,
        ignoreTLS: true,
      });
      const err = await refusal(anonymous.sendMail(mail()));
      expect(err.responseCode).toBe(530);
    });

    it('refuses AUTH without TLS from a non-loopback client with 538, takes it over STARTTLS', async () => {
      // The machine's own non-loopback address: the relay sees the client coming from it.
      const host = nonLoopbackAddress();
      const clear = await refusal(transport(s.apiKey, { host }).sendMail(mail()));
      expect(clear.responseCode).toBe(538);
      expect(clear.response).toContain('Must issue a STARTTLS command first');
      const cert = readFileSync(join(dataDir, 'smtp-tls/cert.pem'), 'utf8');
      const tls = transport(s.apiKey, {
        host,
        ignoreTLS: false,
        requireTLS: true,
        tls: { ca: [cert], servername: 'localhost' },
      });
      expect((await tls.sendMail(mail())).response).toMatch(/^250 OK job_/);
      // Loopback clients may authenticate in the clear, over IPv4 and IPv6.
      for (const loopback of ['127.0.0.1', '::1'])
        expect((await transport(s.apiKey, { host: loopback }).sendMail(mail())).response).toMatch(
          /^250 OK job_/,
        );
    });

    it('takes AUTH without TLS from a non-loopback client when SMTP_ALLOW_INSECURE_AUTH=true', async () => {
      const allowing = await Test.createTestingModule({ imports: [SmtpRelayModule] })
        .overrideProvider(APP_CONFIG)
        .useValue({ ...loadConfig(), smtpAllowInsecureAuth: true })
        .compile();
      allowing.useLogger(testLogger('relay-test', 'warn'));
      await allowing.init();
      try {
        const info = await transport(s.apiKey, {
          host: nonLoopbackAddress(),
          port: allowing.get(SmtpRelayService).port,
        }).sendMail(mail());
        expect(info.response).toMatch(/^250 OK job_/);
      } finally {
        await allowing.close();
      }
    });

    it('upgrades with STARTTLS using the development certificate, verified against it', async () => {
      const cert = readFileSync(join(dataDir, 'smtp-tls/cert.pem'), 'utf8');
      const t = transport(s.apiKey, {
        ignoreTLS: false,
        requireTLS: true,
        tls: { ca: [cert], servername: 'localhost' },
      });
      const info = await t.sendMail(mail());
      expect(info.response).toMatch(/^250 OK job_/);
    });

    it('logs a client that sends garbage instead of a TLS handshake as a warning and keeps serving', async () => {
      const from = logs.length;
      const socket = connect(port, '127.0.0.1');
      let said = '';
      socket.setEncoding('utf8');
      const closed = new Promise((resolve) => socket.on('close', resolve));
      const heard = (pattern: RegExp) =>
        new Promise<void>((resolve) => {
          const check = () => (pattern.test(said) ? resolve() : socket.once('data', onData));
          const onData = (d: string) => {
            said += d;
            check();
          };
          check();
        });
      await heard(/^220 /m);
      socket.write('EHLO garbage.test\r\n');
      await heard(/^250 /m);
      said = '';
      socket.write('STARTTLS\r\n');
      await heard(/^220 /m);
      socket.write(Buffer.alloc(512, 0x41));
      await closed;
      await waitForLog(logs, 'smtp client connection error');
      const lines = logs.slice(from);
      expect(lines.filter((l) => JSON.parse(l).level === 'error')).toEqual([]);
      const info = await transport(s.apiKey).sendMail(mail());
      expect(info.response).toMatch(/^250 OK job_/);
    });

    it('counts failed AUTH toward the per-IP limit shared with the send API: the 21st gets 421', async () => {
      const redis = new Redis(process.env.REDIS_URL!);
      const key = 'af:{ip:127.0.0.1}';
      await redis.del(key);
      try {
        for (let i = 1; i <= 20; i++) {
          const err = await refusal(transport('bk_live_' + 'W'.repeat(40)).sendMail(mail()));
          expect(err.responseCode).toBe(535);
        }
        const blocked = await refusal(transport('bk_live_' + 'W'.repeat(40)).sendMail(mail()));
        expect(blocked.responseCode).toBe(421);
        expect(blocked.response).toContain('Too many failed attempts, please try again later');
        // The HTTP send API sees the same counter for this IP.
        expect(Number(await redis.get(key))).toBeGreaterThan(20);
      } finally {
        await redis.del(key);
        await redis.quit();
      }
    });
  });

  describe('limits', () => {
    it('shares the organization budget with the send API: 250, 250, then 451 perMinute', async () => {
      const limited = await createSession(app, { plan: 'pro' });
      await app.get(OrganizationService).setLimits(limited.org.id, { perMinute: 2 });
      const t = transport(limited.apiKey);
      expect((await t.sendMail(mail())).response).toMatch(/^250 OK/);
      expect((await t.sendMail(mail())).response).toMatch(/^250 OK/);
      const third = await refusal(t.sendMail(mail()));
      expect(third.responseCode).toBe(451);
      expect(third.response).toContain('Rate limit exceeded: perMinute');
      const http = await limited.http.post('/api/v1/send', basicEmail()).expect(429);
      expect(http.body.message).toBe('Rate limit exceeded: perMinute');
    });

    it('sees an organization change at the next MAIL FROM (its cached copy is dropped on NOTIFY)', async () => {
      const changing = await createSession(app, { plan: 'pro' });
      const t = transport(changing.apiKey);
      // The first transaction puts the organization in the relay's cache.
      expect((await t.sendMail(mail())).response).toMatch(/^250 OK/);
      await app
        .get(OrganizationService)
        .update(changing.org.id, { subscriptionStatus: 'canceled' });
      const refused = await waitFor(
        () =>
          t.sendMail(mail()).then(
            () => undefined,
            (err: SmtpFailure) => err,
          ),
        { what: 'a refused MAIL FROM', timeoutMs: 5000, everyMs: 50 },
      );
      expect(refused.responseCode).toBe(554);
      expect(refused.response).toContain('An active subscription is required');
      t.close();
    });

    it('refuses a message over 25 MB with 552', async () => {
      const err = await refusal(
        transport(s.apiKey).sendMail(
          mail('big@example.test', { text: 'x'.repeat(26 * 1024 * 1024) }),
        ),
      );
      expect(err.responseCode).toBe(552);
    });
  });

  describe('delivery', () => {
    it('delivers a relayed message to the sink and logs it with its attempts', async () => {
      worker = await startWorker();
      const info = await transport(s.apiKey).sendMail(
        mail('Rcpt <rcpt@example.test>', {
          cc: 'copy@example.test',
          bcc: 'hidden@example.test',
          subject: 'Via relay',
        }),
      );
      const jobId = info.response.split(' ').pop()!;
      const msg = await waitForMessage(s.http, jobId, (m) => m.deliveryAttempts.length === 3);
      expect(msg.recipients.sort()).toEqual([
        'copy@example.test',
        'hidden@example.test',
        'rcpt@example.test',
      ]);
      expect(msg.senderAddress).toBe('sender@acme.test');
      for (const a of msg.deliveryAttempts)
        expect(a).toMatchObject({ status: 'delivered', smtpCode: 250 });
      // One transaction per envelope recipient, each with its own VERP envelope sender (§13).
      const relayed = sink.messages.filter((m) => m.parsed.subject === 'Via relay');
      expect(relayed.map((m) => m.to).sort()).toEqual([
        ['copy@example.test'],
        ['hidden@example.test'],
        ['rcpt@example.test'],
      ]);
      for (const delivered of relayed) {
        expect(delivered.from).toMatch(/^bounces\+[0-9a-f]{52}@bounces\.localhost$/);
        // Sent byte for byte: the Bcc stays out of the headers, the body is the submitted one.
        expect(delivered.raw).not.toMatch(/^Bcc:/im);
        expect(delivered.parsed.text?.trim()).toBe('Hello over SMTP');
      }
      // Stored as received, encrypted as bytes in messages.raw: no plaintext in the row.
      const [row] = (await app
        .get(DataSource)
        .query(`SELECT raw, content FROM messages WHERE organization_id = $1 AND job_id = $2`, [
          s.org.id,
          jobId,
        ])) as { raw: Buffer; content: string }[];
      expect(Buffer.isBuffer(row.raw)).toBe(true);
      expect(row.raw.subarray(0, 3).toString()).toBe('v1:');
      expect(row.raw.includes('Hello over SMTP')).toBe(false);
      expect(row.raw.includes('Via relay')).toBe(false);
      expect(row.content).not.toContain('Via relay');
      expect(fieldCipher().decryptBytes(row.raw).toString()).toContain('Subject: Via relay');
      await worker.close();
      worker = undefined;
    });

    it('keeps a message acknowledged with 250 through a Redis flush and a worker restart', async () => {
      const info = await transport(s.apiKey).sendMail(
        mail('after-flush@example.test', { subject: 'Survivor' }),
      );
      const jobId = info.response.split(' ').pop()!;
      expect(await flushQueues()).toBeGreaterThan(0);
      worker = await startWorker();
      const msg = await waitForMessage(s.http, jobId, (m) =>
        m.deliveryAttempts.some((a) => a.status === 'delivered'),
      );
      expect(msg.deliveryAttempts).toHaveLength(1);
      expect(sink.messages.filter((m) => m.parsed.subject === 'Survivor')).toHaveLength(1);
    });
  });
});
