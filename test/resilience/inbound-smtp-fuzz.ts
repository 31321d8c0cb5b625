// SMTP fuzzing of the relay's inbound port (§14, §16: bounces, complaints, mailto unsubscribes; no
// AUTH) over raw TCP: a fixed battery (over-long lines, early talkers, commands out of order, AUTH,
// every shape of foreign or relayed recipient and of forged token, NUL bytes, binary garbage, RCPT
// floods, header floods, idle connections) and hostile reports to genuine addresses (malformed DSN
// and ARF, a DSN of 5,000 per-recipient groups, a message past INBOUND_MAX_BYTES, ten recipients
// at once), then fast-check generated command sequences. Every reply line must be a well-formed
// SMTP reply; no recipient but our own addresses with a token we signed (or a role box) may get a
// 2xx (never an open relay); a hostile report to a genuine address gets 250, never a 5xx (a refused
// bounce makes the remote server send more mail) and is stored once; no session may hang; and
// afterwards the port must still take a report and the worker process it, with no process exit,
// no error-level line and no uncaught exception logged.
import fc from 'fast-check';
import { randomBytes, randomUUID } from 'node:crypto';
import { UnsubscribeTokens, VerpTokens } from '@app/domain';
import type { Reporter, ResilienceContext } from './support/context';
import { logProblems } from './support/logs';
import { ProtocolError, Reply, SmtpSession } from './support/smtp-session';

const MB = 1024 * 1024;

export interface InboundFuzzOptions {
  runs?: number;
  concurrency?: number;
  seed?: number;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A job id of the shape the send path issues (`job_` and a ULID). */
function jobId(): string {
  return `job_0${Array.from(randomBytes(25), (b) => CROCKFORD[b % 32]).join('')}`;
}

/** The recipients that must never get a 2xx, whatever the return host. */
function foreignRecipients(domain: string): string[] {
  return [
    'someone@example.com',
    // Token-shaped, but not signed by us.
    `bounces+${'0'.repeat(52)}@${domain}`,
    `bounces+${randomBytes(26).toString('hex')}@${domain}`,
    `unsubscribe+${jobId().slice(4).toLowerCase()}${randomBytes(10).toString('hex')}@${domain}`,
    `postmaster+x@${domain}`,
    `bounces@${domain}`,
    `unsubscribe@${domain}`,
    `fbl+x@${domain}`,
    `bounce+x@${domain}`,
    `bounces+x@other.example`,
    `bounces+x@${domain}.evil.example`,
    `bounces+x@evil-${domain}`,
    `someone%other.example@${domain}`,
    `@${domain}:someone@other.example`,
    `"bounces+x@other.example"@${domain}`,
    `bounces+x@[127.0.0.1]`,
    `bounces+a b@${domain}`,
    `someone@other.example (bounces+x@${domain})`,
    '<>',
    '',
  ];
}

export async function runInboundSmtpFuzz(
  ctx: ResilienceContext,
  reporter: Reporter,
  opts: InboundFuzzOptions = {},
): Promise<void> {
  const runs = opts.runs ?? Number(process.env.RESILIENCE_SMTP_FUZZ_RUNS ?? 2000);
  const concurrency =
    opts.concurrency ?? Number(process.env.RESILIENCE_SMTP_FUZZ_CONCURRENCY ?? 16);
  const seed =
    opts.seed ??
    (process.env.RESILIENCE_FUZZ_SEED
      ? Number(process.env.RESILIENCE_FUZZ_SEED)
      : Math.floor(Math.random() * 2 ** 31));
  const started = Date.now();
  const logStart = ctx.logs().length;
  const { host, port } = ctx.inbound;
  const codes = new Map<number, number>();
  const violations: string[] = [];
  let sessions = 0;
  let commands = 0;

  const count = (r: Reply | null) => {
    if (r) codes.set(r.code, (codes.get(r.code) ?? 0) + 1);
  };
  const fail = (what: string, detail: string) => {
    if (violations.length < 200) violations.push(`${what}: ${detail}`);
  };
  const open = async () => {
    sessions++;
    const s = await SmtpSession.open(host, port);
    const greeting = await s.reply();
    count(greeting);
    return { s, greeting };
  };
  const greeted = async () => {
    const o = await open();
    count(await o.s.command('EHLO fuzz.example'));
    return o.s;
  };
  const refused = (what: string, r: Reply | null, allowed?: number[]) => {
    count(r);
    if (r && (r.code < 400 || (allowed && !allowed.includes(r.code))))
      fail(
        what,
        `expected ${allowed?.join('/') ?? '4xx/5xx'}, got ${r.lines.join(' | ').slice(0, 160)}`,
      );
  };
  const accepted = (what: string, r: Reply | null, code: number) => {
    count(r);
    if (!r || r.code !== code)
      fail(
        what,
        `expected ${code}, got ${r ? r.lines.join(' | ').slice(0, 160) : 'a closed session'}`,
      );
  };
  const safely = async (what: string, f: () => Promise<void>) => {
    try {
      await f();
    } catch (err) {
      fail(what, err instanceof ProtocolError ? `hang: ${err.message}` : (err as Error).message);
    }
  };

  // The return host is the server's name in its greeting (`220 <host> ESMTP …`).
  const first = await open();
  const domain = first.greeting?.lines[0].split(' ')[1] ?? '';
  first.s.destroy();
  if (!domain) fail('greeting', `no host name in ${first.greeting?.lines[0] ?? 'no greeting'}`);
  // Genuine addresses: tokens signed with the platform's key.
  const key = ctx.encryptionKey ? Buffer.from(ctx.encryptionKey, 'base64') : null;
  if (!key) fail('context', 'no encryptionKey: genuine tokens cannot be signed');
  const verp = new VerpTokens([key ?? randomBytes(32)]);
  const unsubscribe = new UnsubscribeTokens([key ?? randomBytes(32)]);
  const bounceAddress = () => verp.address({ messageId: randomUUID(), recipientIndex: 0 }, domain);
  const unsubscribeAddress = () => `unsubscribe+${unsubscribe.sign(jobId())}@${domain}`;
  const ours = (address: string) => {
    const at = address.lastIndexOf('@');
    if (at < 0 || address.slice(at + 1).toLowerCase() !== domain) return false;
    const local = address.slice(0, at);
    if (/^(fbl|postmaster|abuse)$/i.test(local)) return true;
    const token = /^(bounces|unsubscribe)\+(.+)$/i.exec(local);
    if (!token) return false;
    return token[1].toLowerCase() === 'bounces'
      ? verp.verify(token[2]) !== null
      : unsubscribe.verify(token[2]) !== null;
  };
  /** Rows stored for an address (one row per message, its recipients an array). */
  const stored = async (address: string) =>
    (
      await ctx.db.query<{
        status: string;
        size: number;
        attempts: number;
        last_error: string | null;
      }>(
        `SELECT status, size, attempts, last_error FROM inbound_messages
          WHERE $1 = ANY(recipients)`,
        [address],
      )
    ).rows;
  // Refused or cut off: nothing of theirs may be stored.
  const refusedAddress = bounceAddress();

  /** A session at the 354 of DATA for one of our addresses, or null after a fail. */
  const atData = async (what: string): Promise<SmtpSession | null> => {
    const s = await greeted();
    accepted(`${what}: MAIL`, await s.command('MAIL FROM:<>'), 250);
    accepted(`${what}: RCPT`, await s.command(`RCPT TO:<${refusedAddress}>`), 250);
    const data = await s.command('DATA');
    count(data);
    if (data?.code === 354) return s;
    fail(what, `no DATA: ${data?.lines[0] ?? 'closed'}`);
    s.destroy();
    return null;
  };
  const flood = async (what: string, header: string, bodyBytes: number, code: number) => {
    const s = await atData(what);
    if (!s) return;
    const piece = Buffer.from(`${'b'.repeat(1022)}\r\n`.repeat(64));
    let live = await s.send(Buffer.from(`${header}\r\n\r\n`, 'latin1'));
    for (let sent = 0; live && sent < bodyBytes; sent += piece.length) live = await s.send(piece);
    if (live) await s.send(Buffer.from('\r\n.\r\n'));
    const r = await s.reply(120_000);
    if (code === 250) accepted(what, r, 250);
    else refused(what, r, [code]);
    s.destroy();
  };

  // ---- hostile reports to genuine addresses: accepted (250), stored once, never a 5xx -----------
  const reportAddresses: Array<[string, string]> = [];
  let reports5xx = 0;
  const maxBytes = Number(process.env.INBOUND_MAX_BYTES || 2 * MB);
  const stuffed = (text: string) => Buffer.from(text.replace(/(^|\r\n)\./g, '$1..'), 'latin1');
  const report = async (what: string, recipients: string[], message: Buffer) => {
    reportAddresses.push([what, recipients[0]]);
    const s = await greeted();
    accepted(`${what}: MAIL`, await s.command('MAIL FROM:<>'), 250);
    for (const r of recipients) accepted(`${what}: RCPT`, await s.command(`RCPT TO:<${r}>`), 250);
    const data = await s.command('DATA');
    count(data);
    if (data?.code !== 354) {
      fail(what, `no DATA: ${data?.lines[0] ?? 'closed'}`);
      s.destroy();
      return;
    }
    let live = true;
    for (let at = 0; live && at < message.length; at += 256 * 1024)
      live = await s.send(message.subarray(at, at + 256 * 1024));
    if (live) await s.send(Buffer.from('\r\n.\r\n'));
    const r = await s.reply(120_000);
    if (r && r.code >= 500) reports5xx++;
    accepted(what, r, 250);
    s.destroy();
  };
  const dsn = (groups: string, tail = '--b--') =>
    [
      `Message-ID: <${randomUUID()}@mta.example>`,
      'Subject: Undelivered Mail Returned to Sender',
      'Content-Type: multipart/report; report-type=delivery-status; boundary=b',
      '',
      '--b',
      'Content-Type: text/plain',
      '',
      'The mail system could not deliver.',
      '--b',
      'Content-Type: message/delivery-status',
      '',
      'Reporting-MTA: dns; mta.example',
      '',
      groups,
      tail,
    ].join('\r\n');
  const hostileReports = (): Array<[string, () => Promise<void>]> => [
    [
      'malformed DSN',
      () =>
        report(
          'malformed DSN',
          [bounceAddress()],
          stuffed(
            dsn(
              'Final-Recipient: ;;;\r\nAction: \x00fail\xffed\r\nStatus: 9.99.999.1\r\n' +
                `Diagnostic-Code: ${'x'.repeat(20_000)}\r\n\r\n--b\r\nContent-Type: message/rfc822`,
              '',
            ),
          ),
        ),
    ],
    [
      'malformed ARF',
      () =>
        report(
          'malformed ARF',
          [unsubscribeAddress(), `fbl@${domain}`],
          stuffed(
            [
              `Message-ID: <${randomUUID()}@fbl.example>`,
              'Content-Type: multipart/report; report-type=feedback-report',
              '',
              '--missing-boundary',
              'Content-Type: message/feedback-report',
              '',
              'Feedback-Type: abuse\r\nFeedback-Type: not-spam\r\nVersion: x',
              'Content-Type: message/rfc822; charset=x-unknown',
              'Content-Transfer-Encoding: base64',
              '',
              '!!!not base64 at all%%%',
              'Return-Path: <bounces+zzzz@' + domain + '>',
              'List-Unsubscribe: <mailto:unsubscribe+' + 'f'.repeat(46) + '@' + domain + '>',
            ].join('\r\n'),
          ),
        ),
    ],
    [
      'a DSN of 5,000 per-recipient groups',
      () =>
        report(
          '5,000 groups',
          [bounceAddress()],
          stuffed(
            dsn(
              Array.from(
                { length: 5000 },
                (_, i) =>
                  `Final-Recipient: rfc822; r${i}@example.org\r\nAction: failed\r\nStatus: 5.1.1\r\n`,
              ).join('\r\n'),
            ),
          ),
        ),
    ],
    [
      'a report past INBOUND_MAX_BYTES (12 MB)',
      () =>
        report(
          'oversize report',
          [bounceAddress()],
          Buffer.concat([
            stuffed(
              dsn(
                'Final-Recipient: rfc822; a@example.org\r\nAction: failed\r\nStatus: 5.1.1\r\n',
                // The returned original: its header, then a body far past the limit.
                `--b\r\nContent-Type: message/rfc822\r\n\r\nReturn-Path: <${bounceAddress()}>\r\nSubject: big\r\n\r\n`,
              ),
            ),
            Buffer.alloc(12 * MB, `${'o'.repeat(1022)}\r\n`),
          ]),
        ),
    ],
    [
      'ten recipients at once',
      () =>
        report(
          'ten recipients',
          [
            ...Array.from({ length: 6 }, bounceAddress),
            unsubscribeAddress(),
            `fbl@${domain}`,
            `postmaster@${domain}`,
            `abuse@${domain}`,
          ],
          stuffed(
            dsn('Final-Recipient: rfc822; a@example.org\r\nAction: failed\r\nStatus: 5.1.1\r\n'),
          ),
        ),
    ],
    [
      'binary garbage to an unsubscribe address',
      () =>
        report(
          'binary garbage',
          [unsubscribeAddress()],
          Buffer.concat([
            Buffer.from('Subject: unsubscribe\r\n\r\n'),
            Buffer.from(
              randomBytes(64 * 1024)
                .toString('latin1')
                .replace(/[\r\n]/g, ' ')
                .replace(/(.{900})/g, '$1\r\n')
                .replace(/(^|\r\n)\./g, '$1..'),
              'latin1',
            ),
          ]),
        ),
    ],
  ];

  const battery: Array<[string, () => Promise<void>]> = [
    [
      'over-long command line',
      async () => {
        const { s } = await open();
        refused('EHLO with a 100 kB argument', await s.command(`EHLO ${'a'.repeat(100_000)}`));
        s.destroy();
      },
    ],
    [
      'pipelining before the greeting',
      async () => {
        sessions++;
        const s = await SmtpSession.open(host, port);
        s.write(
          `EHLO x\r\nMAIL FROM:<>\r\nRCPT TO:<bounces+early@${domain}>\r\nDATA\r\nSubject: early\r\n\r\nx\r\n.\r\nQUIT\r\n`,
        );
        const replies = await s.drain();
        for (const r of replies) count(r);
        if (replies.some((r) => r.code === 250 && /^250 OK$/.test(r.lines[0])))
          fail('pipelining before the greeting', 'an early talker got a message accepted');
      },
    ],
    [
      'commands out of order',
      async () => {
        const s = await greeted();
        refused('RCPT before MAIL', await s.command(`RCPT TO:<bounces+x@${domain}>`), [503]);
        refused('DATA before RCPT', await s.command('DATA'), [503]);
        accepted('MAIL', await s.command('MAIL FROM:<>'), 250);
        refused('DATA before any RCPT', await s.command('DATA'), [503]);
        refused('second MAIL in a transaction', await s.command('MAIL FROM:<a@b.example>'), [503]);
        s.destroy();
      },
    ],
    [
      'AUTH is not offered',
      async () => {
        const s = await open();
        const ehlo = await s.s.command('EHLO fuzz.example');
        count(ehlo);
        if (ehlo?.lines.some((l) => /AUTH/i.test(l))) fail('EHLO', 'AUTH advertised');
        for (const cmd of ['AUTH PLAIN AGZvbwBiYXI=', 'AUTH LOGIN', 'AUTH CRAM-MD5'])
          refused(cmd, await s.s.command(cmd), [500, 502, 503, 504]);
        s.s.destroy();
      },
    ],
    [
      'never an open relay',
      async () => {
        const s = await greeted();
        accepted('MAIL', await s.command('MAIL FROM:<spammer@example.net>'), 250);
        for (const rcpt of foreignRecipients(domain)) {
          const r = await s.command(`RCPT TO:<${rcpt}>`);
          refused(`RCPT TO:<${rcpt}>`, r);
        }
        s.destroy();
      },
    ],
    [
      'NUL bytes and binary garbage',
      async () => {
        const s = await greeted();
        refused('MAIL with NUL', await s.command(Buffer.from('MAIL FROM:<a\0@example.com>')));
        s.destroy();
        for (let i = 0; i < 5; i++) {
          const g = await open();
          g.s.write(randomBytes(4096));
          g.s.write('\r\nQUIT\r\n');
          for (const r of await g.s.drain().catch(() => [] as Reply[])) count(r);
          g.s.destroy();
        }
      },
    ],
    [
      'SIZE over the limit',
      async () => {
        const s = await greeted();
        refused('MAIL SIZE=99999999999', await s.command('MAIL FROM:<> SIZE=99999999999'), [552]);
        s.destroy();
      },
    ],
    [
      'unterminated DATA, then disconnect',
      async () => {
        const s = await atData('cut-off');
        if (!s) return;
        s.write(`Subject: cut-off\r\n\r\n${'partial body '.repeat(1000)}`);
        await new Promise((r) => setTimeout(r, 200));
        s.destroy();
      },
    ],
    [
      'a flood of RCPT',
      async () => {
        const s = await greeted();
        accepted('MAIL', await s.command('MAIL FROM:<>'), 250);
        const n = 500;
        let batch = '';
        for (let i = 0; i < n; i++) batch += `RCPT TO:<${bounceAddress()}>\r\n`;
        s.write(batch);
        let ok = 0;
        for (let i = 0; i < n; i++) {
          const r = await s.reply(30_000);
          count(r);
          if (!r) break;
          if (r.code === 250) ok++;
          else if (r.code !== 452 && r.code !== 421) fail('RCPT flood', r.lines[0]);
        }
        if (ok !== 10) fail('RCPT flood', `${ok} of ${n} accepted, expected 10`);
        s.destroy();
      },
    ],
    [
      'header flood: 1,001 lines',
      () =>
        flood(
          '1,001 header lines',
          Array.from({ length: 1001 }, (_, i) => `X-F-${i}: v`).join('\r\n'),
          0,
          552,
        ),
    ],
    [
      'header flood: one 1 MB line',
      () => flood('1 MB header', `X-Long: ${'l'.repeat(MB)}`, 0, 552),
    ],
    ...hostileReports(),
    [
      'more idle connections than the port takes',
      async () => {
        const opened = await Promise.all(
          Array.from({ length: 80 }, () => SmtpSession.open(host, port).then((s) => s)),
        );
        sessions += opened.length;
        const greetings = await Promise.all(opened.map((s) => s.reply().catch(() => null)));
        for (const g of greetings) {
          count(g);
          if (g && g.code !== 220 && g.code !== 421) fail('idle connections', g.lines[0]);
        }
        for (const s of opened) s.destroy();
      },
    ],
  ];
  for (const [name, run] of battery) await safely(name, run);

  // ---- generated command sequences -----------------------------------------------------------
  const word = fc
    .string({ unit: 'binary-ascii', maxLength: 30 })
    .map((s) => s.replace(/[\r\n]/g, ''));
  const address = fc.oneof(
    fc.constantFrom(
      ...foreignRecipients(domain),
      bounceAddress(),
      unsubscribeAddress(),
      `fbl@${domain}`,
      `postmaster@${domain}`,
      `abuse@${domain}`,
    ),
    fc
      .tuple(fc.constantFrom('bounces', 'unsubscribe', 'fbl', 'x'), word)
      .map(([b, t]) => `${b}+${t}@${domain}`),
    fc.emailAddress(),
    word,
  );
  const command = fc.oneof(
    fc.tuple(fc.constantFrom('EHLO', 'HELO', 'LHLO'), word).map(([c, w]) => `${c} ${w}`),
    fc
      .tuple(address, fc.constantFrom('', ' BODY=8BITMIME', ' SIZE=100', ' SMTPUTF8', ' SIZE=-1'))
      .map(([a, p]) => `MAIL FROM:<${a}>${p}`),
    address.map((a) => `RCPT TO:<${a}>`),
    fc.constantFrom(
      'RSET',
      'NOOP',
      'VRFY postmaster',
      'EXPN list',
      'HELP',
      'BDAT 10 LAST',
      'AUTH PLAIN',
      'STARTTLS x',
      'XCLIENT ADDR=1.2.3.4',
      'DATA',
    ),
    word,
  );
  const body = fc.oneof(
    fc.constant(
      'Subject: fuzz\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=b\r\n\r\n--b\r\nContent-Type: message/delivery-status\r\n\r\nAction: failed\r\n--b--',
    ),
    fc.string({ unit: 'binary', maxLength: 500 }).map((s) => s.replace(/\r?\n\.\r?\n/g, '\n..\n')),
  );
  const sequence = fc.record({
    steps: fc.array(
      fc.oneof(
        { weight: 6, arbitrary: command },
        {
          weight: 2,
          arbitrary: fc
            .tuple(fc.array(address, { minLength: 1, maxLength: 3 }), body)
            .map(([rcpts, data]) => ({ rcpts, data })),
        },
      ),
      { minLength: 1, maxLength: 10 },
    ),
  });
  let generated = 0;
  const runSequence = async (q: { steps: Array<string | { rcpts: string[]; data: string }> }) => {
    generated++;
    await safely(`sequence ${JSON.stringify(q.steps).slice(0, 200)}`, async () => {
      const { s } = await open();
      const steps: Array<{ command: string; body?: string }> = [{ command: 'EHLO fuzz' }];
      for (const step of q.steps) {
        if (typeof step === 'string') {
          steps.push(
            step === 'DATA'
              ? { command: 'DATA', body: 'Subject: x\r\n\r\nbody' }
              : { command: step },
          );
          continue;
        }
        steps.push({ command: 'MAIL FROM:<>' });
        for (const r of step.rcpts) steps.push({ command: `RCPT TO:<${r}>` });
        steps.push({ command: 'DATA', body: step.data });
      }
      steps.push({ command: 'QUIT' });
      commands += steps.length;
      for (const st of steps) {
        const r = await s.command(st.command);
        count(r);
        if (!r) break;
        const rcpt = /^RCPT TO:<(.*)>$/i.exec(st.command);
        if (rcpt && r.code < 400 && !ours(rcpt[1]))
          fail('a foreign recipient accepted', `${st.command.slice(0, 120)} → ${r.lines[0]}`);
        if (r.code === 451)
          fail(
            'temporary failure (an internal error)',
            `${st.command.slice(0, 80)} → ${r.lines[0]}`,
          );
        if (st.body !== undefined && r.code === 354) {
          const done = await s.command(`${st.body}\r\n.`);
          count(done);
          if (!done) break;
          if (done.code === 451) fail('DATA not stored', done.lines[0]);
        }
      }
      await s.drain().catch(() => undefined);
      if (s.bad.length) fail('malformed reply line', s.bad[0]);
      s.destroy();
    });
  };
  const share = Math.ceil(runs / concurrency);
  await Promise.all(
    Array.from({ length: concurrency }, (_, i) =>
      fc.assert(
        fc.asyncProperty(sequence, async (q) => {
          await runSequence(q);
          return true;
        }),
        { numRuns: share, seed: seed + i },
      ),
    ),
  );

  // ---- still alive: a report is taken and processed --------------------------------------------
  const survivor = bounceAddress();
  await safely('a report after the fuzz', async () => {
    const s = await greeted();
    accepted('MAIL', await s.command('MAIL FROM:<>'), 250);
    accepted('RCPT', await s.command(`RCPT TO:<${survivor}>`), 250);
    accepted('DATA', await s.command('DATA'), 354);
    accepted(
      'end of DATA',
      await s.command('Subject: Undelivered Mail\r\n\r\nno report\r\n.'),
      250,
    );
    s.destroy();
  });
  let processed = false;
  const until = Date.now() + 90_000;
  while (!processed && Date.now() < until) {
    processed = (await stored(survivor))[0]?.status === 'processed';
    if (!processed) await new Promise((r) => setTimeout(r, 250));
  }
  if (!processed) fail('a report after the fuzz', 'never processed');
  if ((await stored(refusedAddress)).length)
    fail('refused or cut-off DATA', 'a refused message was stored');
  // Stored once each, and processed like any report: the worker survived them too.
  const reportsLeft = Date.now() + 60_000;
  for (const [name, address] of reportAddresses) {
    let rows = await stored(address);
    while (rows.some((r) => r.status === 'received') && Date.now() < reportsLeft) {
      await new Promise((r) => setTimeout(r, 250));
      rows = await stored(address);
    }
    if (rows.length !== 1) fail(name, `${rows.length} rows stored, expected 1`);
    else if (rows[0].status !== 'processed')
      fail(
        name,
        `left ${rows[0].status} after ${rows[0].attempts} attempts: ${rows[0].last_error}`,
      );
    else if (rows[0].size > maxBytes) fail(name, `${rows[0].size} bytes stored`);
  }
  for (const line of ctx.logs().slice(logStart))
    if (/exited unexpectedly|\] smtp-relay exited|\] worker exited/.test(line))
      fail('process exit', line.slice(0, 200));

  await new Promise((r) => setTimeout(r, 1000));
  for (const line of logProblems(ctx.logs().slice(logStart)).slice(0, 20))
    fail('log', line.slice(0, 400));

  const replyCodes = [...codes.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([c, n]) => `${c}:${n}`)
    .join(' ');
  reporter.record({
    section: 'smtp-fuzz',
    name: 'inbound',
    requests: sessions,
    errors: violations.length,
    lost: 0,
    passed: violations.length === 0,
    notes: `${battery.length} battery cases (${reportAddresses.length} hostile reports, ${reports5xx} 5xx to them), ${generated} generated sequences (seed ${seed}), ${commands} commands, replies ${replyCodes}, survivor ${processed ? 'processed' : 'NOT processed'}, ${((Date.now() - started) / 1000).toFixed(1)} s${violations.length ? `; first: ${violations[0].slice(0, 200)}` : ''}`,
  });
  if (violations.length)
    throw new Error(
      `inbound SMTP fuzz found ${violations.length} problems:\n${violations.map((v) => `- ${v}`).join('\n')}`,
    );
}
