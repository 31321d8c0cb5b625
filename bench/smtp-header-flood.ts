// The relay's greeting times for other clients while a header flood arrives, next to its greeting
// times when idle, measured in the same run.
//   npm run bench -- smtp-header-flood [rounds=5]
// Two hostile messages per round: a 50,000-line folded header (refused 552 5.3.4 by the header
// cap before any parser sees it) and a body of 50,000 lines that look like folded headers after a
// short header block (accepted). smtp-server holds every greeting back 100 ms, so an idle relay
// greets in a little over 100 ms; a flood that reached the header parser (not linear in folded
// lines) would hold the event loop, and every greeting in flight with it. Target: the slowest
// greeting during a flood under 200 ms.
import { connect, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  admin,
  benchDatabase,
  benchEnv,
  benchKey,
  fmt,
  freePort,
  median,
  startApp,
  stop,
} from './support/harness';

const rounds = Math.max(1, Number(process.argv[2] || 5));
const FOLDED = `Subject: flood\r\n${' x\r\n'.repeat(50_000)}From: a@acme.test\r\n\r\nbody`;
const LF_BODY = `From: a@acme.test\nSubject: lf\n\n${' x\n'.repeat(50_000)}\r\n\r\nbody`;

/** One SMTP session over a socket: each call writes a line (or nothing) and reads one reply. */
function session(
  port: number,
): Promise<{ say: (line?: string) => Promise<string>; socket: Socket }> {
  const socket = connect(port, '127.0.0.1');
  socket.setEncoding('latin1');
  let buffer = '';
  let waiting: ((reply: string) => void) | undefined;
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    // The last line of a reply has a space (or nothing) after its code.
    const m = /(^|\r\n)(\d{3})( [^\r\n]*)?\r\n$/.exec(buffer);
    if (m && waiting) {
      const done = waiting;
      waiting = undefined;
      const reply = buffer;
      buffer = '';
      done(reply);
    }
  });
  const say = (line?: string) =>
    new Promise<string>((done) => {
      waiting = done;
      if (line !== undefined) socket.write(`${line}\r\n`);
    });
  return new Promise((done, fail) => {
    socket.once('error', fail);
    socket.once('connect', () => done({ say, socket }));
  });
}

/** Milliseconds from connect() to the whole 220 line. */
async function greetingMs(port: number): Promise<number> {
  const t0 = performance.now();
  const { say, socket } = await session(port);
  await say();
  const ms = performance.now() - t0;
  socket.end('QUIT\r\n');
  return ms;
}

/** Greetings probed back to back while `hostile` runs (and 150 ms either side). */
async function greetingsDuring(port: number, hostile: () => Promise<void>): Promise<number[]> {
  const latencies: number[] = [];
  let done = false;
  const probes = (async () => {
    while (!done) latencies.push(await greetingMs(port));
  })();
  await new Promise((r) => setTimeout(r, 150));
  try {
    await hostile();
    await new Promise((r) => setTimeout(r, 150));
  } finally {
    done = true;
    await probes;
  }
  return latencies;
}

/** Sends one message through an authenticated session; answers the reply to its final dot. */
async function transaction(port: number, key: string, message: string): Promise<string> {
  const { say, socket } = await session(port);
  await say();
  await say('EHLO bench.test');
  await say(`AUTH PLAIN ${Buffer.from(`\0user\0${key}`).toString('base64')}`);
  await say('MAIL FROM:<sender@acme.test>');
  await say('RCPT TO:<rcpt@example.test>');
  await say('DATA');
  const reply = await say(`${message}\r\n.`);
  socket.end('QUIT\r\n');
  return reply.trim();
}

async function main(): Promise<void> {
  const relayPort = await freePort();
  const env = benchEnv(await benchDatabase('mp_bench_smtp_flood'), {
    SMTP_PORT: String(relayPort),
    INBOUND_SMTP_PORT: String(await freePort()),
  });
  admin(env, ['migrate']);
  const org = admin(env, ['create-org', '--name', 'flood bench', '--plan', 'enterprise']) as {
    organization: { id: string };
  };
  const apiKey = benchKey(env, org.organization.id, 'relay', 'messages:send');
  const relay = await startApp('smtp-relay', env, () =>
    greetingMs(relayPort).then(
      () => true,
      () => false,
    ),
  );
  try {
    const idle: number[] = [];
    const folded: number[] = [];
    const lf: number[] = [];
    const replies = new Set<string>();
    for (let i = 0; i < rounds; i++) {
      idle.push(
        ...(await greetingsDuring(relayPort, () => new Promise((r) => setTimeout(r, 300)))),
      );
      folded.push(
        ...(await greetingsDuring(relayPort, async () => {
          replies.add(`folded header: ${await transaction(relayPort, apiKey, FOLDED)}`);
        })),
      );
      lf.push(
        ...(await greetingsDuring(relayPort, async () => {
          replies.add(
            `flood-like body: ${(await transaction(relayPort, apiKey, LF_BODY)).slice(0, 6)}`,
          );
        })),
      );
    }
    const line = (name: string, xs: number[]) =>
      `${name} ${xs.length} greetings, median ${fmt(median(xs), 1)} ms, slowest ${fmt(Math.max(...xs), 1)} ms`;
    process.stdout.write(
      [
        `smtp-header-flood: ${rounds} rounds; greetings of other clients, back to back`,
        line('baseline  idle relay                         ', idle),
        line('ours      during a 50,000-line folded header ', folded),
        line('ours      during a 50,000-line flood-like body', lf),
        `target    slowest during a flood < 200 ms; replies: ${[...replies].join('; ')}`,
      ].join('\n') + '\n',
    );
  } finally {
    await stop(relay);
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    process.stderr.write(`bench failed: ${err.stack}\n`);
    process.exit(1);
  },
);
