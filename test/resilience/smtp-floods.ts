// Header floods and oversize DATA for the SMTP fuzzing (§16): header blocks over the 1,000-line or
// the 64 KB cap, folded and unfolded, must get `552 5.3.4`, DATA streamed past the 25 MB limit
// must get 552, and while each is sent and processed other clients must still be greeted. How long
// a greeting waits during a flood is a bench's figure (`npm run bench -- smtp-header-flood`). Large
// DATA is written from one reused 64 KB buffer as the socket takes it, so no case holds its
// message in this process.
import { Reply, SmtpSession } from './support/smtp-session';

/** Put in every flood's Subject: none of these messages may reach the sink. */
export const FLOOD_MARK = 'smtp-fuzz flood';

const MB = 1024 * 1024;

export interface FloodHelpers {
  host: string;
  port: number;
  /** A fresh local address for a session (undefined: the default one). */
  next(): string | undefined;
  /** A session past EHLO and AUTH with the suite's key, from a fresh address. */
  authed(local?: string): Promise<SmtpSession>;
  count(r: Reply | null): void;
  fail(what: string, detail: string): void;
}

type Case = [string, () => Promise<void>];

export function floodBattery(h: FloodHelpers, mark: string): { cases: Case[]; greeted(): number } {
  let greeted = 0;

  /** Connects from another address and waits for the 220 (a deadline, not a measure). */
  const greeting = async (): Promise<void> => {
    const s = await SmtpSession.open(h.host, h.port, h.next());
    const reply = await s.reply(30_000);
    s.destroy();
    if (reply?.code !== 220) throw new Error(`greeting ${reply?.lines[0] ?? 'none'}`);
  };

  /** A session at the 354 of DATA, or null after a fail (a 451 rate limit is waited out). */
  const atData = async (what: string): Promise<SmtpSession | null> => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const s = await h.authed(h.next());
      const mail = await s.command('MAIL FROM:<flood@example.com>');
      h.count(mail);
      if (mail?.code === 451) {
        s.destroy();
        await new Promise((r) => setTimeout(r, 1100));
        continue;
      }
      const rcpt = mail?.code === 250 ? await s.command('RCPT TO:<flood@example.com>') : null;
      h.count(rcpt);
      const data = rcpt?.code === 250 ? await s.command('DATA') : null;
      h.count(data);
      if (data?.code === 354) return s;
      h.fail(what, `no DATA: ${[mail, rcpt, data].map((r) => r?.lines[0] ?? '-').join(' / ')}`);
      s.destroy();
      return null;
    }
    h.fail(what, 'MAIL FROM rate-limited five times');
    return null;
  };

  /**
   * Sends `header`, then `bodyBytes` of body lines, then the final dot, while greetings are probed
   * back to back from other addresses; judges the reply to the dot, and each greeting must come.
   */
  const flood = async (
    what: string,
    header: string,
    bodyBytes: number,
    judge: (r: Reply | null) => string | null,
  ): Promise<void> => {
    const s = await atData(what);
    if (!s) return;
    let done = false;
    const probes = (async () => {
      while (!done) {
        await greeting();
        greeted++;
      }
    })();
    try {
      const piece = Buffer.from(`${'b'.repeat(1022)}\r\n`.repeat(64));
      let open = await s.send(Buffer.from(`${header}\r\n\r\n`, 'latin1'));
      for (let sent = 0; open && sent < bodyBytes; sent += piece.length) open = await s.send(piece);
      if (open) await s.send(Buffer.from('\r\n.\r\n'));
      const reply = await s.reply(120_000);
      h.count(reply);
      const wrong = judge(reply);
      if (wrong) h.fail(what, wrong);
    } finally {
      done = true;
      await probes.catch((err: Error) => h.fail(`${what}: a concurrent greeting`, err.message));
      s.destroy();
    }
  };

  const headerTooLarge = (r: Reply | null) =>
    r?.code === 552 && r.lines.join(' ').includes('5.3.4 Message header too large')
      ? null
      : `expected 552 5.3.4, got ${r ? r.lines.join(' | ').slice(0, 160) : 'a closed session'}`;
  const accepted = (r: Reply | null) =>
    r?.code === 250
      ? null
      : `expected 250, got ${r ? r.lines.join(' | ').slice(0, 160) : 'a closed session'}`;
  const tooBig = (r: Reply | null) =>
    r?.code === 552
      ? null
      : `expected 552, got ${r ? r.lines.join(' | ').slice(0, 160) : 'a closed session'}`;

  const subject = `Subject: ${mark}`;
  const unfolded = (n: number, value: string) =>
    Array.from({ length: n }, (_, i) => `X-Flood-${i}: ${value}`).join('\r\n');
  const cases: Case[] = [
    [
      'header flood: 50,000 folded lines (over both caps)',
      () =>
        flood(
          'folded 50,000',
          `${subject}\r\n${' x\r\n'.repeat(50_000)}X-End: 1`,
          0,
          headerTooLarge,
        ),
    ],
    [
      'header flood: 300 folded lines of 300 bytes (over 64 KB only)',
      () =>
        flood(
          'folded 90 KB',
          `${subject}\r\n${` ${'f'.repeat(297)}\r\n`.repeat(300)}X-End: 1`,
          0,
          headerTooLarge,
        ),
    ],
    [
      'header flood: 50,000 unfolded lines (over both caps)',
      () => flood('unfolded 50,000', `${subject}\r\n${unfolded(50_000, 'v')}`, 0, headerTooLarge),
    ],
    [
      'header flood: 1,001 short unfolded lines (over 1,000 lines only)',
      () => flood('unfolded 1,001', `${subject}\r\n${unfolded(1_000, 'v')}`, 0, headerTooLarge),
    ],
    [
      'header flood: 400 unfolded lines of 200 bytes (over 64 KB only)',
      () =>
        flood(
          'unfolded 80 KB',
          `${subject}\r\n${unfolded(400, 'u'.repeat(186))}`,
          0,
          headerTooLarge,
        ),
    ],
    [
      'header flood: one 1 MB header line',
      () => flood('1 MB line', `${subject}\r\nX-Long: ${'l'.repeat(MB)}`, 0, headerTooLarge),
    ],
    [
      'header flood, then 10 MB of body',
      () => flood('flood + body', `${subject}\r\n${unfolded(2_000, 'v')}`, 10 * MB, headerTooLarge),
    ],
    [
      // The block ends at its bare-LF empty line: the body below, up to a CRLF empty line, must
      // not be parsed as header (nor refused). Accepted and delivered, so without the mark.
      'a bare-LF header, then 50,000 folded-looking body lines',
      () =>
        flood(
          'body after a bare-LF header',
          `Subject: smtp-fuzz lf body\n\n${' x\n'.repeat(50_000)}`,
          0,
          accepted,
        ),
    ],
    ['oversize DATA: 30 MB streamed', () => flood('30 MB', subject, 30 * MB, tooBig)],
  ];
  return { cases, greeted: () => greeted };
}
