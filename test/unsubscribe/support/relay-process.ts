// The BUILT relay as a child process (dist/, built when stale), for tests that measure the process
// that runs the inbound port (its memory) or run several replicas of it side by side.
import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt, freePorts, ROOT } from '../../selfhost/support';
import { SmtpSession } from '../../resilience/support/smtp-session';
import { waitFor } from '../../support/wait-for';

export interface RelayProcess {
  child: ChildProcess;
  inboundPort: number;
  /** Every line the process wrote (JSON log lines on stdout, anything on stderr). */
  lines: string[];
  /** Resident set size now and at its peak, in bytes (Linux /proc). */
  memory(): { rss: number; peak: number };
  stop(): Promise<void>;
}

function statusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1];
  if (!kb) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(kb) * 1024;
}

/** Starts the relay with this file's environment plus `env`; resolves once the inbound port greets. */
export async function spawnRelay(env: Record<string, string> = {}): Promise<RelayProcess> {
  ensureBuilt('smtp-relay');
  const [smtpPort, inboundPort] = await freePorts(2);
  const child = spawn(
    process.execPath,
    [join(ROOT, 'dist/apps/smtp-relay/apps/smtp-relay/src/main.js')],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        SMTP_PORT: String(smtpPort),
        INBOUND_SMTP_PORT: String(inboundPort),
        LOG_LEVEL: 'info',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const lines: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) {
    let rest = '';
    stream.on('data', (chunk: Buffer) => {
      const parts = (rest + chunk.toString('utf8')).split('\n');
      rest = parts.pop() ?? '';
      for (const l of parts) if (l) lines.push(l);
    });
  }
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const relay: RelayProcess = {
    child,
    inboundPort,
    lines,
    memory: () => ({
      rss: statusBytes(child.pid!, 'VmRSS'),
      peak: statusBytes(child.pid!, 'VmHWM'),
    }),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error('the relay exited at start');
        const s = await SmtpSession.open('127.0.0.1', inboundPort).catch(() => null);
        if (!s) return false;
        const greeting = await s.reply(5000);
        s.destroy();
        // The inbound port's own banner: a port taken meanwhile by another server is not it.
        return greeting?.code === 220 && /inbound/.test(greeting.lines.join(' '));
      },
      { what: 'the inbound port to greet', timeoutMs: 60_000, everyMs: 200 },
    );
  } catch (err) {
    await relay.stop();
    throw new Error(`${(err as Error).message}\n${lines.join('\n')}`);
  }
  return relay;
}
