// The admin CLI as an operator runs it: the `mp-admin` bin through npx, help without a database,
// only JSON on stdout (logs and errors on stderr), plain-word errors or JSON ones, exit codes.
import { spawnSync } from 'node:child_process';
import { Client } from 'pg';
import { ensureBuilt, ROOT } from './support';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `npx mp-admin …` in the checkout, with the e2e environment (the run's database and Redis). */
function mpAdmin(args: string[], env: Record<string, string> = {}): Run {
  const res = spawnSync('npx', ['--no-install', 'mp-admin', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

// Each run boots the CLI (and npx) anew: seconds each on a busy machine.
describe('mp-admin', () => {
  beforeAll(() => {
    ensureBuilt('api');
    expect(mpAdmin(['migrate', '--json']).status).toBe(0);
  }, 600_000);

  it('--help and <command> --help print usage and exit 0, without a database', () => {
    const nowhere = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', NODE_ENV: 'production' };
    const tool = mpAdmin(['--help'], nowhere);
    expect(tool).toMatchObject({ status: 0, stderr: '' });
    expect(tool.stdout).toMatch(/^Usage: mp-admin <command>/m);
    expect(tool.stdout).toMatch(/^ {2}rotate-keys /m);
    expect(tool.stdout).toMatch(/^ {2}import-file /m);
    const command = mpAdmin(['create-org', '--help'], nowhere);
    expect(command).toMatchObject({ status: 0, stderr: '' });
    expect(command.stdout).toMatch(/^Usage: mp-admin create-org --name NAME/m);
    expect(command.stdout).toMatch(/^Examples?:$/m);
  }, 180_000);

  it('prints only JSON on stdout, so a pipe can read the new id', () => {
    const res = spawnSync(
      'bash',
      [
        '-c',
        'set -o pipefail; npx mp-admin create-org --name X --json | ' +
          `node -pe 'JSON.parse(require("fs").readFileSync(0)).organization.id'`,
      ],
      { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'debug' }, encoding: 'utf8' },
    );
    expect(res.status).toBe(0);
    expect(res.stdout.trim()).toMatch(/^[0-9a-f-]{36}$/);
  }, 180_000);

  it('says what is wrong in plain words, or as JSON with --json; exit 1 and nothing on stdout', () => {
    const plain = mpAdmin(['create-org']);
    expect(plain).toEqual({
      status: 1,
      stdout: '',
      stderr:
        'mp-admin create-org: --name is required\nRun "mp-admin create-org --help" for the usage.\n',
    });
    const json = mpAdmin(['create-org', '--json']);
    expect(json).toMatchObject({ status: 1, stdout: '' });
    expect(JSON.parse(json.stderr)).toEqual({
      error: 'Validation failed',
      code: 'E_VALIDATION_ERROR',
      errors: [{ field: 'name', rule: 'required', message: '--name is required' }],
    });
    const unknownOrg = mpAdmin([
      'create-key',
      ...['--org', '00000000-0000-4000-8000-000000000000', '--name', 'k', '--scopes', 'all'],
    ]);
    expect(unknownOrg).toMatchObject({ status: 1, stdout: '' });
    expect(unknownOrg.stderr).toMatch(/^mp-admin create-key: Organization not found$/m);
  }, 180_000);

  it('set-limits tells the plan default from unlimited', async () => {
    const created = mpAdmin(['create-org', '--name', 'Limits', '--plan', 'pro', '--json']);
    const orgId = (JSON.parse(created.stdout) as { organization: { id: string } }).organization.id;
    const set = mpAdmin([
      'set-limits',
      ...['--org', orgId, '--per-second', '5', '--per-day', 'unlimited', '--json'],
    ]);
    expect(set.status).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({
      organization: {
        id: orgId,
        plan: 'pro',
        limits: {
          perSecond: 5,
          perMinute: 'default',
          perHour: 'default',
          perDay: 'unlimited',
          perMonth: 'default',
          sendingDomains: 'default',
        },
        effective: {
          perSecond: 5,
          perMinute: 600,
          perHour: 10_000,
          perDay: 'unlimited',
          perMonth: 2_000_000,
          sendingDomains: 50,
        },
      },
    });
    const back = mpAdmin(['set-limits', '--org', orgId, '--per-day', 'default', '--json']);
    expect(JSON.parse(back.stdout).organization.effective.perDay).toBe(100_000);

    const db = new Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query(
        'SELECT limit_per_second, limit_per_day FROM organizations WHERE id = $1',
        [orgId],
      );
      expect(rows).toEqual([{ limit_per_second: 5, limit_per_day: null }]);
    } finally {
      await db.end();
    }
    const none = mpAdmin(['set-limits', '--org', orgId, '--per-day', 'none']);
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(
      /--per-day must be a whole number, default or unlimited, got "none"/,
    );
  }, 180_000);
});
