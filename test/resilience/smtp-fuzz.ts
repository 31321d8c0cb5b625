// SMTP command fuzzing of the relay (issue 10, hostile input) over raw TCP: a fixed battery
// (over-long lines, pipelining before the greeting, commands out of order, bad base64 in AUTH,
// NUL bytes, binary garbage, DATA cut off by a disconnect, thousands of RCPT), header floods and
// oversize DATA (smtp-floods.ts), and fast-check generated command sequences. Every reply line
// must be a well-formed SMTP reply, refusals 4xx or 5xx, no session may hang, and afterwards the
// relay must still accept an authenticated message that the worker delivers to the sink, with no
// error-level line or uncaught exception logged.
//
// Failed AUTH counts toward the per-IP failure limit shared with the send API (§8, §9): hostile
// sessions come from other loopback addresses (127.1.x.y, one per session) so the address the rest
// of the suite uses is never blocked.
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { isIPv4 } from 'node:net';
import type { Reporter, ResilienceContext } from './support/context';
import { logProblems } from './support/logs';
import { b64, ProtocolError, Reply, SmtpSession } from './support/smtp-session';
import { FLOOD_MARK, floodBattery } from './smtp-floods';

interface Outcome {
  sessions: number;
  commands: number;
  codes: Map<number, number>;
  violations: string[];
}

/** 127.1.x.y, a new one per hostile session (the per-IP failed-AUTH counter never trips). */
function addressPool(relayHost: string) {
  let n = 0;
  const v4 = relayHost === 'localhost' || isIPv4(relayHost);
  return {
    host: relayHost === 'localhost' ? '127.0.0.1' : relayHost,
    next(): string | undefined {
      if (!v4) return undefined;
      n++;
      return `127.1.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
    },
  };
}

export async function runSmtpFuzz(ctx: ResilienceContext, reporter: Reporter): Promise<void> {
  const runs = Number(process.env.RESILIENCE_SMTP_FUZZ_RUNS ?? 2000);
  const concurrency = Number(process.env.RESILIENCE_SMTP_FUZZ_CONCURRENCY ?? 16);
  const seed = process.env.RESILIENCE_FUZZ_SEED
    ? Number(process.env.RESILIENCE_FUZZ_SEED)
    : Math.floor(Math.random() * 2 ** 31);
  const started = Date.now();
  const logStart = ctx.logs().length;
  const org = await ctx.createOrg(`SMTP fuzz ${randomBytes(3).toString('hex')}`);
  const key = org.apiKey;
  // The pro plan's 20 transactions a second let generated sessions reach DATA (free allows 2).
  await ctx.db.query(`UPDATE organizations SET plan = 'pro' WHERE id = $1`, [org.id]);
  const addresses = addressPool(ctx.relay.host);
  const port = ctx.relay.port;
  const out: Outcome = { sessions: 0, commands: 0, codes: new Map(), violations: [] };

  const count = (r: Reply | null) => {
    if (r) out.codes.set(r.code, (out.codes.get(r.code) ?? 0) + 1);
  };
  const fail = (what: string, detail: string) => {
    if (out.violations.length < 200) out.violations.push(`${what}: ${detail}`);
  };
  const open = async (local = addresses.next()) => {
    out.sessions++;
    const s = await SmtpSession.open(addresses.host, port, local);
    const greeting = await s.reply();
    count(greeting);
    return { s, greeting };
  };
  /** A session past its greeting and EHLO (AUTH is refused before EHLO). */
  const greeted = async (local = addresses.next()) => {
    const o = await open(local);
    count(await o.s.command('EHLO fuzz.example'));
    return o;
  };
  /** A reply that must be a refusal (4xx/5xx), or the server having closed the session. */
  const refused = (what: string, r: Reply | null, allowed?: number[]) => {
    count(r);
    if (r && (r.code < 400 || (allowed && !allowed.includes(r.code)))) {
      fail(
        what,
        `expected ${allowed ? allowed.join('/') : '4xx/5xx'}, got ${r.lines.join(' | ').slice(0, 160)}`,
      );
    }
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
  const authed = async (local?: string) => {
    const { s } = await open(local);
    accepted('EHLO', await s.command('EHLO fuzz.example'), 250);
    accepted('AUTH PLAIN (valid key)', await s.command(`AUTH PLAIN ${b64(`\0fuzz\0${key}`)}`), 235);
    return s;
  };

  // ---- the battery ----------------------------------------------------------------------------
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
      '2 MB without a line end, then close',
      async () => {
        const { s } = await open();
        s.write(
          randomBytes(2 * 1024 * 1024)
            .toString('latin1')
            .replace(/[\r\n]/g, 'x'),
        );
        await s.drain(20_000).catch(() => undefined);
        s.destroy();
      },
    ],
    [
      'pipelining before the greeting',
      async () => {
        out.sessions++;
        const s = await SmtpSession.open(addresses.host, port, addresses.next());
        s.write(
          `EHLO x\r\nAUTH PLAIN ${b64(`\0u\0${key}`)}\r\nMAIL FROM:<a@example.com>\r\nRCPT TO:<b@example.com>\r\nDATA\r\nSubject: early\r\n\r\nx\r\n.\r\nQUIT\r\n`,
        );
        const replies = await s.drain();
        for (const r of replies) count(r);
        if (replies.some((r) => r.code === 250 && r.lines[0].includes('OK job_'))) {
          fail('pipelining before the greeting', 'an early talker got a message accepted');
        }
      },
    ],
    [
      'commands out of order',
      async () => {
        const { s } = await open();
        accepted('EHLO', await s.command('EHLO x'), 250);
        refused('RCPT before MAIL', await s.command('RCPT TO:<b@example.com>'), [503, 530]);
        refused('DATA before RCPT', await s.command('DATA'), [503, 530]);
        refused('MAIL without AUTH', await s.command('MAIL FROM:<a@example.com>'), [530]);
        s.destroy();
        const a = await authed(addresses.next());
        refused(
          'RCPT before MAIL (authenticated)',
          await a.command('RCPT TO:<b@example.com>'),
          [503],
        );
        refused('DATA before RCPT (authenticated)', await a.command('DATA'), [503]);
        const mail = await a.command('MAIL FROM:<a@example.com>');
        count(mail);
        if (mail && mail.code === 250) {
          refused('DATA before any RCPT', await a.command('DATA'), [503]);
          refused(
            'second MAIL in a transaction',
            await a.command('MAIL FROM:<c@example.com>'),
            [503],
          );
        }
        a.destroy();
      },
    ],
    [
      'bad base64 in AUTH PLAIN',
      async () => {
        for (const token of [
          '!!!not-base64!!!',
          '====',
          b64('no-separators'),
          b64('\0\0'),
          '*',
          'a'.repeat(20_000),
          b64(randomBytes(64)),
        ]) {
          const { s } = await greeted();
          refused(
            `AUTH PLAIN ${token.slice(0, 12)}`,
            await s.command(`AUTH PLAIN ${token}`),
            [421, 500, 501, 504, 535, 538],
          );
          s.destroy();
        }
      },
    ],
    [
      'bad base64 in AUTH LOGIN',
      async () => {
        const { s } = await greeted();
        const first = await s.command('AUTH LOGIN');
        count(first);
        if (first?.code === 334) {
          const user = await s.command('%%%not base64%%%');
          count(user);
          if (user?.code === 334)
            refused(
              'AUTH LOGIN bad password',
              await s.command('\u00ff\u00fe'),
              [421, 500, 501, 535],
            );
          else refused('AUTH LOGIN bad user', user, [421, 500, 501, 535]);
        } else refused('AUTH LOGIN', first);
        s.destroy();
        const t = await greeted();
        refused(
          'AUTH LOGIN with a bad initial response',
          await t.s.command('AUTH LOGIN ***'),
          [421, 500, 501, 535],
        );
        t.s.destroy();
      },
    ],
    [
      'unknown AUTH mechanism and a cancelled exchange',
      async () => {
        const { s } = await greeted();
        refused('AUTH CRAM-MD5', await s.command('AUTH CRAM-MD5'), [504]);
        const login = await s.command('AUTH LOGIN');
        count(login);
        if (login?.code === 334) refused('AUTH cancelled with *', await s.command('*'), [501]);
        s.destroy();
      },
    ],
    [
      'NUL bytes in commands',
      async () => {
        const { s } = await open();
        const ehlo = await s.command(Buffer.from('EHLO a\0b'));
        count(ehlo);
        refused('MAIL FROM with NUL', await s.command(Buffer.from('MAIL FROM:<a\0@example.com>')));
        s.destroy();
        const a = await authed(addresses.next());
        refused(
          'MAIL FROM with NUL (authenticated)',
          await a.command(Buffer.from('MAIL FROM:<a\0b@example.com>')),
        );
        a.destroy();
      },
    ],
    [
      'binary garbage',
      async () => {
        for (let i = 0; i < 5; i++) {
          const { s } = await open();
          s.write(randomBytes(4096));
          s.write('\r\nQUIT\r\n');
          const replies = await s.drain().catch(() => [] as Reply[]);
          for (const r of replies) count(r);
          s.destroy();
        }
      },
    ],
    [
      'STARTTLS then garbage instead of a handshake',
      async () => {
        const { s } = await open();
        await s.command('EHLO x');
        const tls = await s.command('STARTTLS');
        count(tls);
        if (tls?.code === 220) s.write(randomBytes(512));
        await new Promise((r) => setTimeout(r, 500));
        s.destroy();
      },
    ],
    [
      'SIZE over the limit',
      async () => {
        const a = await authed(addresses.next());
        refused(
          'MAIL FROM SIZE=99999999999',
          await a.command('MAIL FROM:<a@example.com> SIZE=99999999999'),
          [552, 451],
        );
        a.destroy();
      },
    ],
    [
      'unterminated DATA, then disconnect',
      async () => {
        const a = await authed(addresses.next());
        const mail = await a.command('MAIL FROM:<a@example.com>');
        count(mail);
        if (mail?.code !== 250) return a.destroy();
        accepted('RCPT', await a.command('RCPT TO:<cut@example.com>'), 250);
        accepted('DATA', await a.command('DATA'), 354);
        a.write(`Subject: cut-off ${org.id}\r\n\r\n${'partial body '.repeat(1000)}`);
        await new Promise((r) => setTimeout(r, 200));
        a.destroy();
      },
    ],
    [
      'thousands of RCPT',
      async () => {
        const a = await authed(addresses.next());
        const mail = await a.command('MAIL FROM:<a@example.com>');
        count(mail);
        if (mail?.code !== 250) return a.destroy();
        const n = 3000;
        let batch = '';
        for (let i = 0; i < n; i++) batch += `RCPT TO:<r${i}@example.com>\r\n`;
        a.write(batch);
        let ok = 0;
        let tooMany = 0;
        for (let i = 0; i < n; i++) {
          const r = await a.reply(30_000);
          count(r);
          if (!r) break;
          if (r.code === 250) ok++;
          else if (r.code === 452) tooMany++;
          else if (r.code !== 421) fail('RCPT flood', `reply ${r.lines[0]}`);
        }
        if (ok !== 50 || tooMany + ok < n - 20)
          fail('RCPT flood', `${ok} accepted, ${tooMany} refused with 452 of ${n}`);
        a.destroy();
      },
    ],
    [
      'failed AUTH past the per-IP limit',
      async () => {
        // One address, 22 wrong keys: the 21st failure and later get 421 and the session closes.
        const local = addresses.next();
        let blocked = false;
        for (let i = 0; i < 22 && !blocked; i++) {
          const { s, greeting } = await open(local);
          await s.command('EHLO x');
          if (greeting?.code === 421) {
            blocked = true;
            break;
          }
          const r = await s.command(`AUTH PLAIN ${b64(`\0u\0bk_live_${'x'.repeat(40)}`)}`);
          count(r);
          if (r?.code === 421) blocked = true;
          else refused('wrong key', r, [535]);
          s.destroy();
        }
        if (local && !blocked)
          fail('failed AUTH limit', 'no 421 after 22 failures from one address');
      },
    ],
    [
      'hundreds of idle connections',
      async () => {
        const sessions = await Promise.all(
          Array.from({ length: 200 }, async () => (await open()).s),
        );
        for (const s of sessions) s.destroy();
      },
    ],
  ];
  for (const [name, run] of battery) await safely(name, run);
  const floodMark = `${FLOOD_MARK} ${org.id}`;
  const floods = floodBattery(
    { host: addresses.host, port, next: () => addresses.next(), authed, count, fail },
    floodMark,
  );
  for (const [name, run] of floods.cases) await safely(name, run);

  // ---- generated command sequences -----------------------------------------------------------
  const word = fc
    .string({ unit: 'binary-ascii', maxLength: 30 })
    .map((s) => s.replace(/[\r\n]/g, ''));
  const address = fc.oneof(
    fc.constantFrom(
      'a@example.com',
      '<>',
      '',
      'postmaster',
      '"q u"@example.com',
      'a@[127.0.0.1]',
      'x'.repeat(600) + '@example.com',
      'ü@exämple.com',
      'a@b',
    ),
    fc.emailAddress(),
    word,
  );
  const command = fc.oneof(
    fc.tuple(fc.constantFrom('EHLO', 'HELO', 'ehlo', 'LHLO'), word).map(([c, w]) => `${c} ${w}`),
    fc.constant(`AUTH PLAIN ${b64(`\0fuzz\0${key}`)}`),
    fc
      .oneof(
        word,
        fc.uint8Array({ maxLength: 40 }).map((b) => b64(Buffer.from(b))),
      )
      .map((t) => `AUTH PLAIN ${t}`),
    fc
      .tuple(
        address,
        fc.constantFrom('', ' BODY=8BITMIME', ' SIZE=100', ' SMTPUTF8', ' SIZE=-1', ' XFOO=bar'),
      )
      .map(([a, p]) => `MAIL FROM:<${a}>${p}`),
    address.map((a) => `RCPT TO:<${a}>`),
    fc.constantFrom('MAIL FROM:', 'RCPT TO:', 'MAIL FROM a@example.com', 'RCPT', 'MAIL'),
    fc.constantFrom(
      'RSET',
      'NOOP',
      'VRFY postmaster',
      'EXPN list',
      'HELP',
      'TURN',
      'ETRN x',
      'BDAT 10 LAST',
      'STARTTLS x',
      'XCLIENT ADDR=1.2.3.4',
      'XFORWARD NAME=x',
    ),
    fc.constant('DATA'),
    word,
    fc.integer({ min: 1000, max: 20_000 }).map((n) => `NOOP ${'z'.repeat(n)}`),
  );
  const body = fc.oneof(
    fc.constant('Subject: fuzz\r\nFrom: a@example.com\r\n\r\nhello'),
    fc.string({ unit: 'binary', maxLength: 500 }).map((s) => s.replace(/\r?\n\.\r?\n/g, '\n..\n')),
    fc.constantFrom(
      'Subject: =?utf-8?B?!!!?=\r\nContent-Type: multipart/mixed; boundary="\r\n\r\n--x',
      'From: "\u0000" <a@example.com>\r\n\r\nx',
      `X-Long: ${'h'.repeat(20_000)}\r\n\r\nx`,
      '\r\n',
      '..leading dot\r\n.\rnot-the-end',
      'Content-Transfer-Encoding: base64\r\n\r\n%%%%',
    ),
  );
  const sequence = fc.record({
    steps: fc.array(
      fc.oneof(
        { weight: 6, arbitrary: command },
        { weight: 1, arbitrary: body.map((b) => ({ data: b })) },
        // A well-formed transaction around a generated message.
        {
          weight: 2,
          arbitrary: fc
            .tuple(fc.array(address, { minLength: 1, maxLength: 3 }), body)
            .map(([rcpts, b]) => ({ rcpts, data: b })),
        },
      ),
      { minLength: 1, maxLength: 12 },
    ),
    pipelined: fc.boolean(),
    authenticateFirst: fc.boolean(),
  });

  let generated = 0;
  const runSequence = async (q: {
    steps: Array<string | { data: string; rcpts?: string[] }>;
    pipelined: boolean;
    authenticateFirst: boolean;
  }) => {
    generated++;
    await safely(`sequence ${JSON.stringify(q.steps).slice(0, 200)}`, async () => {
      const { s } = await open();
      // A DATA step carries its body; a bare DATA gets a small one. Every DATA is closed with the
      // final dot: an open one would wait for the socket timeout.
      const steps: Array<{ command: string; body?: string }> = [];
      if (q.authenticateFirst) {
        steps.push({ command: 'EHLO fuzz' }, { command: `AUTH PLAIN ${b64(`\0fuzz\0${key}`)}` });
      }
      for (const step of q.steps) {
        if (typeof step !== 'string') {
          if (step.rcpts) {
            steps.push({ command: 'MAIL FROM:<fuzz@example.com>' });
            for (const r of step.rcpts) steps.push({ command: `RCPT TO:<${r}>` });
          }
          steps.push({ command: 'DATA', body: step.data });
        } else if (step === 'DATA')
          steps.push({ command: 'DATA', body: 'Subject: generated\r\n\r\nbody' });
        else steps.push({ command: step });
      }
      steps.push({ command: 'QUIT' });
      out.commands += steps.length;
      if (q.pipelined) {
        s.write(
          steps
            .map((st) => `${st.command}\r\n${st.body !== undefined ? `${st.body}\r\n.\r\n` : ''}`)
            .join(''),
        );
        // An AUTH that leaves its credentials to the next line (`AUTH PLAIN` with an empty
        // token) takes the closing QUIT as them, and the server then rightly waits for the
        // client. So after 2 s of silence the client cancels any exchange and quits once more;
        // a server that still does not answer within the deadline hangs.
        let resent = false;
        for (;;) {
          const wait = resent ? 20_000 : 2_000;
          const r = await s.reply(wait).catch((err: Error) => {
            if (resent) throw err;
            return undefined;
          });
          if (r === undefined) {
            resent = true;
            s.write('*\r\nQUIT\r\n');
            continue;
          }
          if (!r) break;
          count(r);
        }
      } else {
        // Lockstep: each reply is judged against the command it answers.
        let authenticated = false;
        const judge = (what: string, r: Reply) => {
          if (r.code === 451 && !/Rate limit exceeded/.test(r.lines.join(' '))) {
            fail(
              'temporary failure (an internal error)',
              `${what.slice(0, 80)} → ${r.lines.join(' | ')}`,
            );
          }
        };
        for (const st of steps) {
          const r = await s.command(st.command);
          count(r);
          if (!r) break;
          judge(st.command, r);
          if (r.code === 235) authenticated = true;
          const verb = st.command.split(' ')[0].toUpperCase();
          if (!authenticated && ['MAIL', 'RCPT', 'DATA'].includes(verb) && r.code < 400) {
            fail(`${verb} accepted without AUTH`, `${st.command.slice(0, 80)} → ${r.lines[0]}`);
          }
          if (st.body !== undefined && r.code === 354) {
            const done = await s.command(`${st.body}\r\n.`);
            count(done);
            if (!done) break;
            judge(`DATA ${st.body}`, done);
          }
        }
        await s.drain().catch(() => undefined);
      }
      if (s.bad.length) fail('malformed reply line', s.bad[0]);
      s.destroy();
    });
  };
  // `concurrency` properties side by side (each runs its sessions one after another), own seeds.
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

  // ---- still alive: an authenticated message from the suite's own address, delivered ----------
  const subject = `smtp-fuzz survivor ${randomBytes(4).toString('hex')}`;
  let jobId: string | undefined;
  for (let attempt = 0; attempt < 20 && !jobId; attempt++) {
    await safely('valid transaction after the fuzz', async () => {
      const s = await authed(undefined);
      const mail = await s.command('MAIL FROM:<survivor@example.com>');
      count(mail);
      if (mail?.code === 451) {
        s.destroy();
        await new Promise((r) => setTimeout(r, 1500));
        return;
      }
      accepted('MAIL', mail, 250);
      accepted('RCPT', await s.command('RCPT TO:<survivor-rcpt@example.com>'), 250);
      accepted('DATA', await s.command('DATA'), 354);
      const done = await s.command(
        `From: survivor@example.com\r\nTo: survivor-rcpt@example.com\r\nSubject: ${subject}\r\n\r\nstill here\r\n.`,
      );
      count(done);
      const m = done ? /OK (job_\w+)/.exec(done.lines.join(' ')) : null;
      if (m) jobId = m[1];
      else fail('valid transaction after the fuzz', done ? done.lines.join(' | ') : 'closed');
      await s.command('QUIT').catch(() => null);
      s.destroy();
    });
  }
  let delivered = false;
  if (jobId) {
    const until = Date.now() + 90_000;
    while (!delivered && Date.now() < until) {
      delivered = ctx.sink.messages().some((m) => m.raw.includes(subject));
      if (!delivered) await new Promise((r) => setTimeout(r, 500));
    }
    if (!delivered) fail('valid transaction after the fuzz', `${jobId} never reached the sink`);
    // The cut-off DATA must not have been stored or sent.
    if (ctx.sink.messages().some((m) => m.raw.includes(`cut-off ${org.id}`))) {
      fail('unterminated DATA', 'a message cut off by a disconnect was delivered');
    }
    if (ctx.sink.messages().some((m) => m.raw.includes(floodMark))) {
      fail('header flood or oversize DATA', 'a refused message was delivered');
    }
  } else fail('valid transaction after the fuzz', 'the relay accepted no message');

  // ---- logs -----------------------------------------------------------------------------------
  await new Promise((r) => setTimeout(r, 1000));
  const problems = logProblems(ctx.logs().slice(logStart));
  for (const line of problems.slice(0, 20)) fail('log', line.slice(0, 400));

  const codes = [...out.codes.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([c, n]) => `${c}:${n}`)
    .join(' ');
  const errors = out.violations.length;
  reporter.record({
    section: 'smtp-fuzz',
    name: 'relay',
    requests: out.sessions,
    errors,
    lost: 0,
    passed: errors === 0,
    notes: `${battery.length + floods.cases.length} battery cases (${floods.greeted()} greetings of other clients during floods), ${generated} generated sequences (seed ${seed}), ${out.commands} commands, replies ${codes}, survivor ${delivered ? 'delivered' : 'NOT delivered'}, ${((Date.now() - started) / 1000).toFixed(1)} s${errors ? `; first: ${out.violations[0].slice(0, 200)}` : ''}`,
  });
  if (errors)
    throw new Error(
      `SMTP fuzz found ${errors} problems:\n${out.violations.map((v) => `- ${v}`).join('\n')}`,
    );
}
