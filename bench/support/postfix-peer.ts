// A private Postfix instance for the SMTP bench's peer mode: its own config, queue and data
// directories under one temporary directory, smtpd on a loopback port, every message discarded by
// the discard(8) delivery agent after it has been queued durably, no DNS, logging to a file there.
// Runs as root (Postfix drops to mail_owner, the unprivileged `postfix` user Debian creates).
import { execFileSync } from 'node:child_process';
import {
  accessSync,
  chmodSync,
  constants,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, processCpuMs, procStatFields } from './harness';

const POSTFIX = '/usr/sbin/postfix';
const DAEMONS = '/usr/lib/postfix/sbin';
/** The queues a message sits in between smtpd's reply and its delivery (postconf(5)). */
const QUEUES = ['maildrop', 'incoming', 'active', 'deferred', 'hold'];

export interface PostfixPeer {
  port: number;
  /** mail_version, e.g. 3.7.11. */
  version: string;
  /** Messages in the instance's queues (accepted, not yet delivered). */
  queued(): number;
  /** Deliveries its log records as sent so far. */
  delivered(): number;
  /**
   * CPU (ms) the instance has used so far: the master, its live daemons (smtpd, cleanup, qmgr,
   * trivial-rewrite, discard, postlogd, anvil, ...) and the daemons it has reaped.
   */
  cpuMs(): number;
  /** Stops the instance and removes its directory; safe to call more than once. */
  stop(): void;
}

/** Why Postfix cannot run here, or undefined when it can. */
export function postfixUnavailable(): string | undefined {
  try {
    accessSync(POSTFIX, constants.X_OK);
  } catch {
    return `${POSTFIX} not found: install Debian's postfix package to compare with it`;
  }
  if (process.getuid?.() !== 0) return 'Postfix starts only as root: run the bench as root';
  if (!/^postfix:/m.test(readFileSync('/etc/passwd', 'utf8')))
    return 'no `postfix` user to run Postfix as (the Debian package creates it)';
  return undefined;
}

function userIds(name: string): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`))!;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

function mainCf(dir: string): string {
  return [
    'compatibility_level = 3.6',
    `queue_directory = ${dir}/queue`,
    `data_directory = ${dir}/data`,
    `daemon_directory = ${DAEMONS}`,
    'mail_owner = postfix',
    'setgid_group = postdrop',
    'myhostname = postfix.bench.test',
    'mydomain = bench.test',
    'myorigin = $myhostname',
    'mydestination =',
    'inet_interfaces = loopback-only',
    'inet_protocols = ipv4',
    'mynetworks = 127.0.0.0/8',
    'smtpd_recipient_restrictions = permit_mynetworks, reject',
    'default_transport = discard',
    'relay_transport = discard',
    'smtp_dns_support_level = disabled',
    'smtpd_peername_lookup = no',
    'alias_maps =',
    'alias_database =',
    'local_recipient_maps =',
    'biff = no',
    `maillog_file = ${dir}/maillog`,
    `maillog_file_prefixes = ${dir}`,
    'syslog_name = postfix-bench',
  ].join('\n');
}

/** The services of Debian's master.cf this configuration uses, none chrooted. */
function masterCf(port: number): string {
  return [
    `127.0.0.1:${port} inet n - n - - smtpd`,
    'pickup unix n - n 60 1 pickup',
    'cleanup unix n - n - 0 cleanup',
    'qmgr unix n - n 300 1 qmgr',
    'rewrite unix - - n - - trivial-rewrite',
    'bounce unix - - n - 0 bounce',
    'defer unix - - n - 0 bounce',
    'trace unix - - n - 0 bounce',
    'verify unix - - n - 1 verify',
    'flush unix n - n 1000? 0 flush',
    'proxymap unix - - n - - proxymap',
    'showq unix n - n - - showq',
    'error unix - - n - - error',
    'retry unix - - n - - error',
    'discard unix - - n - - discard',
    'anvil unix - - n - 1 anvil',
    'scache unix - - n - 1 scache',
    'postlog unix-dgram n - n - 1 postlogd',
  ].join('\n');
}

function childrenOf(parent: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    // The parent pid is the 4th field; a process gone already has none.
    if (Number(procStatFields(Number(entry))?.[1]) === parent) pids.push(Number(entry));
  }
  return pids;
}

/** Files under `dir` and its subdirectories (the deferred queue is hashed into some). */
function countFiles(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true }))
    n += e.isDirectory() ? countFiles(join(dir, e.name)) : 1;
  return n;
}

/**
 * Configures and starts a private Postfix instance; throws with a message saying what is missing
 * where Postfix cannot run. The instance is stopped and its directory removed on process exit too.
 */
export async function startPostfix(): Promise<PostfixPeer> {
  const missing = postfixUnavailable();
  if (missing) throw new Error(missing);
  const dir = mkdtempSync(join(tmpdir(), 'mp-bench-postfix-'));
  // Postfix daemons reach the queue as the postfix user after dropping privileges.
  chmodSync(dir, 0o755);
  const config = join(dir, 'etc');
  mkdirSync(config);
  mkdirSync(join(dir, 'queue'));
  mkdirSync(join(dir, 'data'));
  const owner = userIds('postfix');
  chownSync(join(dir, 'data'), owner.uid, owner.gid);
  const port = await freePort();
  writeFileSync(join(config, 'main.cf'), mainCf(dir) + '\n');
  writeFileSync(join(config, 'master.cf'), masterCf(port) + '\n');
  const run = (command: string) =>
    execFileSync(POSTFIX, ['-c', config, command], { stdio: ['ignore', 'pipe', 'pipe'] });
  let running = false;
  const stop = () => {
    if (running) {
      running = false;
      try {
        run('stop');
      } catch (err) {
        process.stderr.write(`postfix stop: ${(err as Error).message}\n`);
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stop);
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => process.exit(signal === 'SIGINT' ? 130 : 143));
  try {
    // `start` creates the queue directories, checks the installation, then waits for the master.
    running = true;
    run('start');
  } catch (err) {
    const log = readFileSync(join(dir, 'maillog'), { encoding: 'utf8', flag: 'a+' });
    stop();
    throw new Error(`postfix did not start: ${(err as Error).message}\n${log}`);
  }
  const master = Number(readFileSync(join(dir, 'queue/pid/master.pid'), 'utf8').trim());
  const queue = join(dir, 'queue');
  const maillog = join(dir, 'maillog');
  const version = execFileSync('/usr/sbin/postconf', ['-c', config, '-h', 'mail_version'], {
    encoding: 'utf8',
  }).trim();
  return {
    port,
    version,
    queued: () => QUEUES.reduce((n, q) => n + countFiles(join(queue, q)), 0),
    delivered: () => readFileSync(maillog, 'utf8').split(' status=sent ').length - 1,
    cpuMs: () =>
      childrenOf(master).reduce((ms, pid) => ms + processCpuMs(pid), 0) +
      processCpuMs(master, { reapedChildren: true }),
    stop,
  };
}
