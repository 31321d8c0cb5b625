import { PassThrough } from 'node:stream';
import { readPassword } from './password-input';

function io(tty: boolean) {
  const stdin = Object.assign(new PassThrough(), { isTTY: tty });
  let err = '';
  const stderr = new PassThrough();
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  return { io: { stdin, stderr }, stdin, err: () => err };
}

const tick = () => new Promise((r) => setImmediate(r));

describe(readPassword.name, () => {
  it('takes --password with a one-line warning on stderr', async () => {
    const t = io(false);
    await expect(readPassword({ password: 'a long passphrase' }, t.io)).resolves.toBe(
      'a long passphrase',
    );
    await tick();
    expect(t.err()).toMatch(/^warning: --password is visible .*\n$/);
    expect(t.err().split('\n')).toHaveLength(2);
  });

  it('reads the first line of stdin with --password-stdin, spaces kept, CRLF or not', async () => {
    const t = io(false);
    const read = readPassword({ 'password-stdin': true }, t.io);
    t.stdin.end(' a long passphrase \r\nsecond line\n');
    await expect(read).resolves.toBe(' a long passphrase ');
    expect(t.err()).toBe('');
    const empty = io(false);
    const none = readPassword({ 'password-stdin': true }, empty.io);
    empty.stdin.end();
    await expect(none).resolves.toBe('');
  });

  it('asks twice in a terminal, echoing nothing of what is typed', async () => {
    const t = io(true);
    const read = readPassword({}, t.io);
    await tick();
    expect(t.err()).toBe('Password: ');
    t.stdin.write('a long passphrase\r');
    await tick();
    expect(t.err()).toBe('Password: \nPassword again: ');
    t.stdin.write('a long passphrase\r');
    await expect(read).resolves.toBe('a long passphrase');
    expect(t.err()).not.toContain('passphrase');

    const typo = io(true);
    const mismatch = readPassword({}, typo.io);
    typo.stdin.write('a long passphrase\r');
    await tick();
    typo.stdin.write('a long passphrasf\r');
    await expect(mismatch).rejects.toMatchObject({
      errors: [{ field: 'password', rule: 'mismatch', message: 'the two passwords differ' }],
    });
  });

  it('needs a password source when stdin is no terminal', async () => {
    await expect(readPassword({}, io(false).io)).rejects.toMatchObject({
      errors: [{ field: 'password', rule: 'required', message: expect.any(String) }],
    });
  });
});
