// The inbound port bounded (§16), on the BUILT relay in child processes and the real
// PostgreSQL and Redis: RCPT takes only tokens we signed and the role boxes; one stored copy per
// message whatever its recipient count, in bounded memory; INBOUND_MAX_BYTES keeps the head of a
// message and accepts it; per-address connection and message limits hold across two replicas.
import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { InboundMessageSweeper, loadConfig, UnsubscribeTokens, VerpTokens } from '@app/domain';
import { Reply, SmtpSession } from '../resilience/support/smtp-session';
import { RelayProcess, spawnRelay } from './support/relay-process';
import { waitFor } from '../support/wait-for';

const DOMAIN = 'bounces.test';
const MiB = 1024 * 1024;
/** How far the relay's peak resident set may rise above its idle one over this file's messages. */
const GROWTH_LIMIT = 40 * MiB;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

const key = loadConfig().encryptionKey;
const verp = new VerpTokens([key]);
const unsubscribe = new UnsubscribeTokens([key]);

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
function jobId(): string {
  const rest = Array.from(randomBytes(25), (b) => CROCKFORD[b % 32]).join('');
  return `job_0${rest}`;
}
const bounceAddress = () => verp.address({ messageId: randomUUID(), recipientIndex: 0 }, DOMAIN);
const unsubscribeAddress = () => `unsubscribe+${unsubscribe.sign(jobId())}@${DOMAIN}`;

interface Row {
  id: string;
  kind: string;
  recipients: string[];
  size: number;
}

describe('Inbound port bounds', () => {
  let relay: RelayProcess;
  let ds: DataSource;
  /** The relay's resident set once started, before any mail (about 120 MiB: Nest and its modules). */
  let idle: number;

  beforeAll(async () => {
    ds = new DataSource({ type: 'postgres', url: process.env.DATABASE_URL });
    await ds.initialize();
    relay = await spawnRelay({ BOUNCE_DOMAIN: DOMAIN });
    idle = relay.memory().rss;
  }, 180_000);
  afterAll(async () => {
    await relay?.stop();
    await ds?.destroy();
  });

  const rowsFor = (address: string): Promise<Row[]> =>
    ds.query(`SELECT id, kind, recipients, size FROM inbound_messages WHERE $1 = ANY(recipients)`, [
      address,
    ]);

  async function session(port = relay.inboundPort, from?: string): Promise<SmtpSession> {
    const s = await SmtpSession.open('127.0.0.1', port, from);
    expect((await s.reply())?.code).toBe(220);
    expect((await s.command('EHLO remote.example'))?.code).toBe(250);
    return s;
  }
  const first = (r: Reply | null) => r?.lines[0] ?? 'closed';

  /** One transaction: the RCPT replies, then (when one was accepted) the reply to the message. */
  async function deliver(
    recipients: string[],
    message: Buffer,
  ): Promise<{ rcpt: string[]; data: string }> {
    const s = await session();
    try {
      expect(first(await s.command('MAIL FROM:<>'))).toMatch(/^250/);
      const rcpt: string[] = [];
      for (const r of recipients) rcpt.push(first(await s.command(`RCPT TO:<${r}>`)));
      if (!rcpt.some((r) => r.startsWith('250'))) return { rcpt, data: '' };
      expect(first(await s.command('DATA'))).toMatch(/^354/);
      await s.send(message);
      await s.send(Buffer.from('\r\n.\r\n'));
      return { rcpt, data: first(await s.reply(120_000)) };
    } finally {
      s.destroy();
    }
  }
  /** A message of `size` bytes, unique, with lines short enough for SMTP. */
  function message(size: number): Buffer {
    const head = Buffer.from(`Subject: Undelivered Mail ${hex(8)}\r\n\r\n`);
    const line = Buffer.from(`${'r'.repeat(998)}\r\n`);
    const body = Buffer.alloc(size - head.length, line);
    return Buffer.concat([head, body]);
  }

  it('refuses a forged token at RCPT and takes a genuine one and the role boxes', async () => {
    const forgedBounce = `bounces+${hex(26)}@${DOMAIN}`;
    const forgedUnsubscribe = `unsubscribe+${jobId().slice(4).toLowerCase()}${hex(10)}@${DOMAIN}`;
    const genuine = [bounceAddress(), unsubscribeAddress()];
    const roles = [`postmaster@${DOMAIN}`, `abuse@${DOMAIN}`];
    const elsewhere = verp.address({ messageId: randomUUID(), recipientIndex: 0 }, 'other.example');

    const refused = await deliver([forgedBounce, forgedUnsubscribe, elsewhere], message(200));
    expect(refused.rcpt).toEqual([
      '550 5.1.1 No such recipient here',
      '550 5.1.1 No such recipient here',
      '550 5.1.1 No such recipient here',
    ]);
    for (const address of genuine) {
      const { rcpt, data } = await deliver([address], message(300));
      expect(rcpt).toEqual([expect.stringMatching(/^250/)]);
      expect(data).toMatch(/^250/);
      expect(await rowsFor(address)).toHaveLength(1);
    }
    for (const address of roles) {
      const { rcpt, data } = await deliver([address], message(300));
      expect(rcpt).toEqual([expect.stringMatching(/^250/)]);
      expect(data).toMatch(/^250/);
      expect(await rowsFor(address)).toEqual([expect.objectContaining({ kind: 'operator' })]);
    }
  });

  it('stores 10 recipients × 2 MiB once, the relay growing by less than a copy per recipient', async () => {
    const recipients = Array.from({ length: 10 }, bounceAddress);
    const raw = message(2 * MiB - 1024);
    const { rcpt, data } = await deliver(recipients, raw);
    expect(rcpt.every((r) => r.startsWith('250'))).toBe(true);
    expect(data).toMatch(/^250/);
    const [row, ...others] = await rowsFor(recipients[0]);
    expect(others).toEqual([]);
    expect(row).toMatchObject({ kind: 'bounce', recipients });
    expect(row.size).toBeGreaterThanOrEqual(raw.length);
    expect(row.size).toBeLessThanOrEqual(raw.length + 2);
    const [{ n }]: { n: number }[] = await ds.query(
      `SELECT count(*)::int AS n FROM inbound_messages WHERE recipients && $1::text[]`,
      [recipients],
    );
    expect(n).toBe(1);
    // One copy of the message, not one per recipient (which took ~554 MiB for 10 × 10 MiB): ten
    // copies alone would raise the resident set by 20 MiB.
    const { peak } = relay.memory();
    expect(peak - idle).toBeLessThan(recipients.length * raw.length);

    // The same bytes again (a replay): 250, nothing stored twice.
    expect((await deliver(recipients.slice(0, 1), raw)).data).toMatch(/^250/);
    expect(await rowsFor(recipients[0])).toHaveLength(1);
  });

  it('keeps the first INBOUND_MAX_BYTES of a larger message and accepts it', async () => {
    const address = bounceAddress();
    const { data } = await deliver([address], message(5 * MiB));
    expect(data).toBe('250 OK');
    expect(await rowsFor(address)).toEqual([expect.objectContaining({ size: 2 * MiB })]);
    const logged = relay.lines.find((l) => l.includes('"truncated":true'));
    expect(logged).toBeDefined();
    const line = JSON.parse(logged!) as { bytes: number; receivedBytes: number };
    expect(line.bytes).toBe(2 * MiB);
    expect(line.receivedBytes).toBeGreaterThanOrEqual(5 * MiB);
    // The 3 MiB past the limit were read and dropped, not held.
    expect(relay.memory().peak - idle).toBeLessThan(GROWTH_LIMIT);
  });

  it('purges a processed row after 7 days', async () => {
    const address = bounceAddress();
    expect((await deliver([address], message(400))).data).toMatch(/^250/);
    const [row] = await rowsFor(address);
    await ds.query(
      `UPDATE inbound_messages SET status = 'processed', processed_at = now() - interval '8 days'
        WHERE id = $1`,
      [row.id],
    );
    const sweeper = new InboundMessageSweeper(ds);
    expect(await sweeper.purgeFinished(new Date(Date.now() - 7 * 86_400_000), 1000)).toBe(1);
    expect(await rowsFor(address)).toEqual([]);
  });

  describe('per client address, across two replicas', () => {
    let replicas: RelayProcess[] = [];
    beforeAll(async () => {
      const env = {
        BOUNCE_DOMAIN: DOMAIN,
        BULL_PREFIX: `${process.env.BULL_PREFIX}-limits`,
        INBOUND_CONNECTIONS_PER_IP: '2',
        INBOUND_MESSAGES_PER_IP_PER_MINUTE: '3',
      };
      replicas = await Promise.all([spawnRelay(env), spawnRelay(env)]);
    }, 180_000);
    afterAll(async () => {
      await Promise.all(replicas.map((r) => r.stop()));
    });

    it('refuses a connection over INBOUND_CONNECTIONS_PER_IP with 421, and frees it on close', async () => {
      const [a, b] = replicas.map((r) => r.inboundPort);
      const open = [await session(a, '127.0.0.3'), await session(b, '127.0.0.3')];
      for (const port of [a, b]) {
        const extra = await SmtpSession.open('127.0.0.1', port, '127.0.0.3');
        expect(first(await extra.reply())).toBe('421 4.7.0 Too many connections from your address');
        extra.destroy();
      }
      // Another address is not affected.
      (await session(a, '127.0.0.4')).destroy();
      open[0].destroy();
      // Freed once the replica has seen the close: the address is greeted again, on either one.
      const again = await waitFor(
        async () => {
          const s = await SmtpSession.open('127.0.0.1', b, '127.0.0.3');
          if ((await s.reply())?.code === 220) return s;
          s.destroy();
          return undefined;
        },
        { what: 'the connection slot freed by the close' },
      );
      expect((await again.command('EHLO remote.example'))?.code).toBe(250);
      again.destroy();
      open[1].destroy();
    });

    it('refuses a transaction over INBOUND_MESSAGES_PER_IP_PER_MINUTE with 451', async () => {
      const [a, b] = replicas.map((r) => r.inboundPort);
      const replies: string[] = [];
      for (const port of [a, b, a, b]) {
        const s = await session(port, '127.0.0.5');
        replies.push(first(await s.command('MAIL FROM:<>')));
        s.destroy();
      }
      expect(replies).toEqual([
        expect.stringMatching(/^250/),
        expect.stringMatching(/^250/),
        expect.stringMatching(/^250/),
        '451 4.7.1 Too many messages, try again later',
      ]);
      const other = await session(a, '127.0.0.6');
      expect(first(await other.command('MAIL FROM:<>'))).toMatch(/^250/);
      other.destroy();
    });
  });
});
