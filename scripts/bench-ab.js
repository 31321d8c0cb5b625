#!/usr/bin/env node
// npm run bench:ab -- <rev-a> <rev-b> [<rev-c>…] [--rounds N] [--match REGEX] -- <bench> [bench args]
//
// Runs one bench on two or more revisions of the repository, alternating A, B, (C…), A, B… on the
// same machine, and prints each run's ratio lines side by side: the way to compare a change (or
// the removal of an optimisation) with its base when the machine's speed drifts between runs. Each revision is
// checked out once into a worktree under the system's temporary folder (sharing this checkout's node_modules),
// built, and benched on its own databases (BENCH_DB_PREFIX).
const { execFileSync, spawnSync } = require('node:child_process');
const { existsSync, mkdirSync, symlinkSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

function usage(message) {
  if (message) process.stderr.write(`${message}\n`);
  process.stderr.write(
    'usage: npm run bench:ab -- <rev-a> <rev-b> [<rev-c>…] [--rounds N] [--match REGEX] -- <bench> [args]\n',
  );
  process.exit(2);
}

function parseArgs(argv) {
  const dash = argv.indexOf('--');
  if (dash < 0) usage('missing `--` before the bench');
  const own = argv.slice(0, dash);
  const bench = argv.slice(dash + 1);
  if (!bench.length) usage('missing the bench name');
  const opts = { revs: [], rounds: 3, match: /ratio/i };
  for (let i = 0; i < own.length; i++) {
    if (own[i] === '--rounds') opts.rounds = Number(own[++i]);
    else if (own[i] === '--match') opts.match = new RegExp(own[++i], 'i');
    else opts.revs.push(own[i]);
  }
  if (opts.revs.length < 2) usage('give two revisions or more');
  if (!Number.isInteger(opts.rounds) || opts.rounds < 1) usage('--rounds takes a positive integer');
  return { ...opts, bench };
}

const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();

/** A built worktree of `rev` (its commit), created on first use. */
function checkout(rev) {
  const sha = git('rev-parse', '--verify', `${rev}^{commit}`);
  const dir = path.join(tmpdir(), 'bench-ab', sha.slice(0, 12));
  if (!existsSync(dir)) {
    mkdirSync(path.dirname(dir), { recursive: true });
    git('worktree', 'add', '--detach', dir, sha);
    symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
  }
  const built = spawnSync('node', ['scripts/build.js', '--if-stale', 'api', 'worker', 'smtp-relay'], {
    cwd: dir,
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error(`build of ${rev} failed`);
  return { rev, sha, dir };
}

/** One bench run in `side`'s worktree; returns the lines matching the pattern. */
function run(side, bench, match, label) {
  const env = { ...process.env, BENCH_DB_PREFIX: `ab_${side.sha.slice(0, 8)}_` };
  const out = spawnSync('node', ['scripts/bench.js', ...bench], {
    cwd: side.dir,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (out.status !== 0) {
    process.stdout.write(out.stdout);
    throw new Error(`${label}: the bench exited with ${out.status}`);
  }
  return out.stdout.split('\n').filter((l) => match.test(l));
}

function main() {
  const { revs, rounds, match, bench } = parseArgs(process.argv.slice(2));
  const sides = revs.map(checkout);
  for (let round = 1; round <= rounds; round++) {
    for (const [i, side] of sides.entries()) {
      const label = `${String.fromCharCode(65 + i)} ${side.rev} round ${round}`;
      const lines = run(side, bench, match, label);
      process.stdout.write(`${label}\n${lines.map((l) => `  ${l.trim()}`).join('\n')}\n`);
    }
  }
}

main();
