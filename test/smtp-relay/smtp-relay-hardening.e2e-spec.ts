// The relay's hostile-input controls (§16) end to end over raw SMTP: the header-block cap that keeps
// a header flood from the header parser, DATA past the size limit discarded rather than held,
// and the API key re-checked at every MAIL FROM.
import { INestApplication } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ApiKeyService, CredentialService, setLogSink } from '@app/domain';
import * as logHeaders from '../../apps/smtp-relay/src/log-headers';
import { SmtpRelayModule } from '../../apps/smtp-relay/src/smtp-relay.module';
import { MAX_MESSAGE_BYTES, SmtpRelayService } from '../../apps/smtp-relay/src/smtp-relay.service';
import { createTestApp, testLogger } from '../support/app';
import { createKey, createSession, Session } from '../support/session';
import { waitFor } from '../support/wait-for';
import { sendingEnv } from '../sending/support/sending';
import { RawSmtp, Reply } from './support/raw-smtp';

// The relay runs in this process. Collected garbage makes arrayBuffers the Buffers still
// referenced (DATA held by the relay); the second collection finishes freeing the first one's
// (V8 releases dead backing stores on a background sweeper).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function retainedArrayBuffers(): number {
  gc();
  gc();
  return process.memoryUsage().arrayBuffers;
}

const MB = 1024 * 1024;

describe('SMTP relay hardening', () => {
  let relay: TestingModule;
  let app: INestApplication;
  let s: Session;
  let port: number;

  // The apps log at warn (the key re-check tests read the relay's warnings); the lines are kept
  // here, not printed.
  const fileLogs: string[] = [];
  const keepLogs = () => setLogSink((line) => fileLogs.push(line));

  beforeAll(async () => {
    keepLogs();
    sendingEnv({ SMTP_PORT: '0', DATA_DIR: mkdtempSync(join(tmpdir(), 'mp-relay-hard-')) });
    relay = await Test.createTestingModule({ imports: [SmtpRelayModule] }).compile();
    relay.useLogger(testLogger('relay-test', 'warn'));
    await relay.init();
    port = relay.get(SmtpRelayService).port;
    app = await createTestApp({ logLevel: 'warn' });
    s = await createSession(app, { plan: 'pro' });
  });
  afterAll(async () => {
    await relay.close();
    await app.close();
    setLogSink((line) => process.stdout.write(line + '\n'));
  });

  /** A session at the 354 of DATA. */
  async function atData(key = s.apiKey): Promise<RawSmtp> {
    const c = await RawSmtp.authenticated(port, key);
    await c.expect('MAIL FROM:<sender@acme.test>', 250);
    await c.expect('RCPT TO:<rcpt@example.test>', 250);
    await c.expect('DATA', 354);
    return c;
  }

  /** Sends a whole message (dot-stuffing is the caller's) and returns the reply to its end. */
  async function transaction(message: string): Promise<Reply> {
    const c = await atData();
    await c.write(`${message}\r\n.\r\n`);
    const r = await c.reply();
    await c.quit();
    return r;
  }

  describe('header block', () => {
    /** Every message the relay's header parser was given while `work` ran. */
    async function parsedDuring(work: () => Promise<void>): Promise<Buffer[]> {
      const parse = jest.spyOn(logHeaders, 'relayHeaders');
      try {
        await work();
        return parse.mock.calls.map(([raw]) => raw);
      } finally {
        parse.mockRestore();
      }
    }

    // The header parser is not linear in folded lines: a flood that reached it would hold the
    // event loop, and every other client's greeting with it. The relay measures the block first,
    // so a flood never reaches the parser (greeting times during a flood: `npm run bench --
    // smtp-header-flood`).
    it('refuses a 50,000-line folded header with 552 5.3.4 before any header parser sees it', async () => {
      const flood = `Subject: flood\r\n${' x\r\n'.repeat(50_000)}From: a@acme.test\r\n\r\nbody`;
      let reply: Reply | undefined;
      const parsed = await parsedDuring(async () => {
        reply = await transaction(flood);
      });
      expect(`${reply?.code} ${reply?.text}`).toBe('552 5.3.4 Message header too large');
      expect(parsed).toEqual([]);
    });

    it('parses only up to the first empty line: a body that looks like a header flood is a body', async () => {
      // The block ends at the bare-LF empty line; a CRLF empty line further down must not be
      // taken for its end.
      const message = `Subject: lf\n\n${' x\n'.repeat(50_000)}\r\n\r\nbody`;
      let reply: Reply | undefined;
      const parsed = await parsedDuring(async () => {
        reply = await transaction(message);
      });
      expect(reply?.code).toBe(250);
      expect(parsed).toHaveLength(1);
      expect(logHeaders.headerBlock(parsed[0]).toString('latin1')).toBe('Subject: lf\n\n');
    });

    it('refuses more than 1,000 header lines or more than 64 KB of header, and accepts 1,000 lines', async () => {
      const lines = (n: number) =>
        Array.from({ length: n }, (_, i) => `X-Line-${i}: v`).join('\r\n');
      const tooLarge = '552 5.3.4 Message header too large';

      const unfolded = await transaction(`${lines(1_001)}\r\n\r\nbody`);
      expect(`${unfolded.code} ${unfolded.text}`).toBe(tooLarge);
      const folded = await transaction(`Subject: s\r\n${' w\r\n'.repeat(1_000)}\r\nbody`);
      expect(`${folded.code} ${folded.text}`).toBe(tooLarge);
      const oneLongLine = await transaction(`Subject: ${'y'.repeat(64 * 1024)}\r\n\r\nbody`);
      expect(`${oneLongLine.code} ${oneLongLine.text}`).toBe(tooLarge);
      // No empty line at all: the whole message is its header block.
      const noBody = await transaction(`Subject: s${'\r\nX-Pad: zzzzzzzz'.repeat(4_000)}`);
      expect(`${noBody.code} ${noBody.text}`).toBe(tooLarge);
      // Bare LF line ends count the same.
      const bareLf = await transaction(
        `${Array.from({ length: 1_001 }, (_, i) => `X-L${i}: v`).join('\n')}\n\nbody`,
      );
      expect(`${bareLf.code} ${bareLf.text}`).toBe(tooLarge);

      const atCap = await transaction(`Subject: at the cap\r\n${lines(999)}\r\n\r\nbody`);
      expect(atCap.code).toBe(250);
      expect(atCap.text).toMatch(/^OK job_/);
    });
  });

  describe('DATA past the size limit', () => {
    /**
     * Streams `bytes` of body after `header` from one reused 64 KB buffer, and returns the
     * relay's retained-Buffer growth sampled every 8 MB sent, keyed by the bytes sent so far.
     */
    async function streamed(
      header: string,
      bytes: number,
    ): Promise<{ reply: Reply; samples: Array<[number, number]> }> {
      const piece = Buffer.from(`${'x'.repeat(1022)}\r\n`.repeat(64));
      const c = await atData();
      const base = retainedArrayBuffers();
      const samples: Array<[number, number]> = [];
      await c.write(`${header}\r\n\r\n`);
      for (let sent = 0; sent < bytes; sent += piece.length) {
        await c.write(piece);
        if (sent % (8 * MB) === 0) samples.push([sent, retainedArrayBuffers() - base]);
      }
      await c.write('\r\n.\r\n');
      const reply = await c.reply();
      samples.push([bytes, retainedArrayBuffers() - base]);
      await c.quit();
      return { reply, samples };
    }
    const peak = (samples: Array<[number, number]>) => Math.max(...samples.map(([, g]) => g));

    it('discards the rest of an 80 MB DATA instead of holding it, then answers 552', async () => {
      const { reply, samples } = await streamed('Subject: oversize', 80 * MB);
      expect(reply.code).toBe(552);
      expect(reply.text).toContain(`maximum message size ${MAX_MESSAGE_BYTES}`);
      // Up to the limit the message is held, as any message is; past it (the relay is a few MB
      // of socket buffers behind the client) nothing of it is.
      expect(peak(samples)).toBeLessThan(MAX_MESSAGE_BYTES + 8 * MB);
      expect(peak(samples.filter(([sent]) => sent >= 40 * MB))).toBeLessThan(4 * MB);
    });

    it('does not hold the body of a message whose header block is already refused', async () => {
      const { reply, samples } = await streamed(
        `Subject: s\r\n${'X-F: v\r\n'.repeat(2_000)}`,
        20 * MB,
      );
      expect(`${reply.code} ${reply.text}`).toBe('552 5.3.4 Message header too large');
      expect(peak(samples)).toBeLessThan(4 * MB);
    });
  });

  describe('key re-checked at MAIL FROM', () => {
    let logs: string[] = [];
    beforeEach(() => {
      logs = [];
      setLogSink((line) => logs.push(line));
    });
    afterEach(keepLogs);

    /** The relay's warning names the key by id, never by its value. */
    function expectWarned(keyId: string, value: string): void {
      const warned = logs.filter((l) => l.includes('smtp key no longer valid in an open session'));
      expect(warned).toHaveLength(1);
      expect(JSON.parse(warned[0])).toMatchObject({ level: 'warn', keyId });
      expect(logs.join('\n')).not.toContain(value);
    }

    /** The relay learns of a key change over Redis pub/sub: wait until its own lookup sees it. */
    async function relaySeesDead(value: string): Promise<void> {
      const credentials = relay.get(CredentialService);
      await waitFor(
        async () => !(await credentials.liveKey(value))?.scopes.includes('messages:send'),
        {
          what: 'the relay to see the key as dead',
          timeoutMs: 5_000,
        },
      );
    }

    async function sendOne(c: RawSmtp): Promise<void> {
      await c.expect('MAIL FROM:<sender@acme.test>', 250);
      await c.expect('RCPT TO:<rcpt@example.test>', 250);
      await c.expect('DATA', 354);
      await c.write('Subject: before\r\n\r\nbody\r\n.\r\n');
      expect((await c.reply()).text).toMatch(/^OK job_/);
    }

    it('refuses a key revoked mid-session with 535 5.7.8, then MAIL FROM needs a new AUTH (530)', async () => {
      const { key, value } = await createKey(app, s.org.id, { scopes: ['messages:send'] });
      const c = await RawSmtp.authenticated(port, value);
      await sendOne(c);

      await s.http.delete(`/api/v1/user/api-keys/${key.id}`).expect(200);
      await relaySeesDead(value);

      const revoked = await c.command('MAIL FROM:<sender@acme.test>');
      expect(`${revoked.code} ${revoked.text}`).toBe(
        '535 5.7.8 Authentication credentials invalid',
      );
      const again = await c.command('MAIL FROM:<sender@acme.test>');
      expect(again.code).toBe(530);
      // A new AUTH with a live key is accepted on the same connection.
      await c.expect(`AUTH PLAIN ${Buffer.from(`\0u\0${s.apiKey}`).toString('base64')}`, 235);
      await c.expect('MAIL FROM:<sender@acme.test>', 250);
      await c.quit();
      expectWarned(key.id, value);
    });

    it('refuses a key that expired mid-session with 535 5.7.8', async () => {
      // Expiry needs no invalidation: the relay's cached record carries expiresAt.
      const { key, value } = await app.get(ApiKeyService).create(s.org.id, {
        name: 'expiring',
        scopes: ['messages:send'],
        expiresAt: new Date(Date.now() + 2_000),
      });
      const c = await RawSmtp.authenticated(port, value);
      await sendOne(c);
      await relaySeesDead(value);
      const expired = await c.command('MAIL FROM:<sender@acme.test>');
      expect(`${expired.code} ${expired.text}`).toBe(
        '535 5.7.8 Authentication credentials invalid',
      );
      expect((await c.command('MAIL FROM:<sender@acme.test>')).code).toBe(530);
      await c.quit();
      expectWarned(key.id, value);
    });

    it('refuses a key that lost messages:send mid-session with 535 5.7.8', async () => {
      const { key, value } = await createKey(app, s.org.id, { scopes: ['messages:send'] });
      const c = await RawSmtp.authenticated(port, value);
      await sendOne(c);
      await s.http
        .patch(`/api/v1/user/api-keys/${key.id}`, { scopes: ['contacts:read'] })
        .expect(200);
      await relaySeesDead(value);
      const descoped = await c.command('MAIL FROM:<sender@acme.test>');
      expect(`${descoped.code} ${descoped.text}`).toBe(
        '535 5.7.8 Authentication credentials invalid',
      );
      await c.quit();
      expectWarned(key.id, value);
    });
  });
});
