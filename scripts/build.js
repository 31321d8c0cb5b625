#!/usr/bin/env node
// Builds the apps and the dashboard, skipping a target whose output is newer than every one of its
// inputs (`--if-stale`). `npm run build` builds everything production runs; `npm start`, the admin
// CLI and the self-hosting tests build only what is stale.
//
// A target is up to date when its entry file exists and is newer than the newest of its inputs:
// source files and the folders holding them (a deleted or renamed file changes its folder's
// time), the build configuration and the installed dependencies' lockfile. A failed build removes
// the entry file, so it can never be taken for a current one.
const { spawnSync } = require('node:child_process');
const { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const CONFIG = ['package.json', 'package-lock.json', 'node_modules/.package-lock.json', 'tsconfig.json'];

const nestTarget = (app) => ({
  entry: `dist/apps/${app}/apps/${app}/src/main.js`,
  inputs: [`apps/${app}/src`, 'libs', `apps/${app}/tsconfig.app.json`, 'nest-cli.json', ...CONFIG],
  command: ['npx', 'nest', 'build', app],
});

const TARGETS = {
  api: nestTarget('api'),
  worker: nestTarget('worker'),
  'smtp-relay': nestTarget('smtp-relay'),
  dashboard: {
    entry: 'dist/dashboard/index.html',
    // The dashboard's API types and enum values are generated from the OpenAPI document.
    inputs: ['apps/dashboard', 'docs/openapi.json', ...CONFIG],
    command: ['npm', 'run', '--silent', 'build:dashboard'],
  },
  // The tests' provider fakes, which `npm start` runs in development (scripts/channel-fakes.js):
  // plain tsc, a few seconds. Only named builds make it: production has no use for it.
  'channel-fakes': {
    entry: 'dist/channel-fakes/test/support/providers/twilio-fake.js',
    inputs: ['test/support/providers', 'libs/domain/src', ...CONFIG],
    command: ['npx', 'tsc', '-p', 'test/support/providers/tsconfig.build.json'],
    development: true,
  },
};
/** What `npm run build` builds. */
const DEFAULT_TARGETS = Object.keys(TARGETS).filter((name) => !TARGETS[name].development);

/** Newest modification time (ms) under `p`: files and folders; spec files do not count. */
function newest(p) {
  let stat;
  try {
    stat = statSync(p);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return /\.spec\.tsx?$/.test(p) ? 0 : stat.mtimeMs;
  let max = stat.mtimeMs;
  for (const entry of readdirSync(p)) {
    if (entry === 'node_modules') continue;
    max = Math.max(max, newest(path.join(p, entry)));
  }
  return max;
}

/** True when the target's sources are absent (a production image ships only dist/) or older. */
function upToDate(name) {
  const t = TARGETS[name];
  const entry = path.join(root, t.entry);
  if (!existsSync(entry)) return false;
  if (!existsSync(path.join(root, t.inputs[0]))) return true;
  return statSync(entry).mtimeMs > Math.max(...t.inputs.map((i) => newest(path.join(root, i))));
}

/** A lock left by a process that died before writing its pid is taken over after this long. */
const LOCK_UNCLAIMED_MS = 30_000;

function sleepSync(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Whether the lock's holder has gone: its pid is not a live process, or it never wrote one. */
function holderGone(lock) {
  let pid;
  try {
    pid = Number(readFileSync(path.join(lock, 'pid'), 'utf8'));
  } catch {
    try {
      return Date.now() - statSync(lock).mtimeMs > LOCK_UNCLAIMED_MS;
    } catch {
      return true; // released meanwhile
    }
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return err.code === 'ESRCH';
  }
}

/**
 * Runs `work` holding the target's lock (a folder: mkdir is atomic). Two processes that need the
 * same target at once (two test files) build it once: the second waits, then finds it up to date;
 * neither rewrites files that the other's freshly started processes are loading.
 */
function withLock(name, work) {
  const lock = path.join(root, 'dist', '.build-locks', name);
  mkdirSync(path.dirname(lock), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    if (holderGone(lock)) rmSync(lock, { recursive: true, force: true });
    else sleepSync(200);
  }
  try {
    writeFileSync(path.join(lock, 'pid'), String(process.pid));
    return work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Builds the named targets in order (when none is named, all but the development ones). With
 * `ifStale`, a target that is up to date is skipped. Progress goes to `log` (stderr by default:
 * stdout may be a command's JSON). Throws when a build fails.
 */
function build(names = DEFAULT_TARGETS, { ifStale = false, log = (m) => process.stderr.write(m + '\n') } = {}) {
  for (const name of names) {
    const t = TARGETS[name];
    if (!t) throw new Error(`unknown build target "${name}" (one of ${Object.keys(TARGETS).join(', ')})`);
    // Checked before the lock too: an up-to-date build needs no write access (a production image
    // runs as a user that cannot write dist/).
    if (ifStale && upToDate(name)) continue;
    withLock(name, () => {
      if (ifStale && upToDate(name)) return;
      log(`building ${name}...`);
      const began = Date.now();
      const [cmd, ...args] = t.command;
      const res = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', 2, 2] });
      if (res.status !== 0) {
        rmSync(path.join(root, t.entry), { force: true });
        throw new Error(`the build of ${name} failed`);
      }
      log(`built ${name} in ${((Date.now() - began) / 1000).toFixed(1)} s`);
    });
  }
}

module.exports = { build, upToDate, TARGETS };

if (require.main === module) {
  const args = process.argv.slice(2);
  const ifStale = args.includes('--if-stale');
  const names = args.filter((a) => !a.startsWith('--'));
  try {
    build(names.length ? names : undefined, { ifStale });
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}
