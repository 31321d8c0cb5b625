// Where `create-user` takes a password from: a prompt without echo in a terminal, the first line of
// stdin (`--password-stdin`), or `--password` (visible in the shell's history and the process list,
// so it is answered with a warning).
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { ValidationFailedError } from '@app/domain/errors/domain-errors';
import type { Flags } from './admin-command';

export interface PasswordIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
}

const PROCESS_IO: PasswordIo = { stdin: process.stdin, stderr: process.stderr };

export async function readPassword(flags: Flags, io: PasswordIo = PROCESS_IO): Promise<string> {
  if (typeof flags.password === 'string') {
    io.stderr.write(
      'warning: --password is visible to other users of this machine and kept in shell history; ' +
        'prefer --password-stdin or the prompt\n',
    );
    return flags.password;
  }
  if (flags['password-stdin']) return (await readLines(io, [null]))[0] ?? '';
  if (!io.stdin.isTTY) {
    throw ValidationFailedError.field(
      'password',
      'required',
      'give the password with --password-stdin, or run in a terminal to be asked for it',
    );
  }
  const [password, again] = await readLines(io, ['Password: ', 'Password again: ']);
  if (password === null || again === null) throw new Error('no password given');
  if (password !== again) {
    throw ValidationFailedError.field('password', 'mismatch', 'the two passwords differ');
  }
  return password;
}

/**
 * Lines of stdin, one per prompt (null: no prompt), or null for each one stdin ended before. With
 * prompts, readline drives the terminal (raw mode, line editing, Ctrl-C ends the input) but echoes
 * into a sink: the prompts go to stderr, the typing nowhere.
 */
async function readLines(io: PasswordIo, prompts: (string | null)[]): Promise<(string | null)[]> {
  const asking = prompts.some((p) => p !== null);
  const rl = createInterface({
    input: io.stdin,
    output: asking ? new Writable({ write: (_chunk, _enc, done) => done() }) : undefined,
    terminal: asking,
  });
  rl.on('SIGINT', () => rl.close());
  const lines = rl[Symbol.asyncIterator]();
  const out: (string | null)[] = [];
  try {
    for (const prompt of prompts) {
      if (prompt !== null) io.stderr.write(prompt);
      const next = await lines.next();
      if (prompt !== null) io.stderr.write('\n');
      out.push(next.done ? null : next.value);
    }
  } finally {
    rl.close();
  }
  return out;
}
