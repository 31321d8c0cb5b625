// A child process of the suite (api, worker, relay, redis-server) whose output is captured line
// by line and whose exits are told apart: the ones the suite caused and the ones it did not.
import { ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, WriteStream } from 'node:fs';
import { createInterface } from 'node:readline';

export interface LogEntry {
  process: string;
  line: string;
  at: number;
}

export interface UnexpectedExit {
  process: string;
  code: number | null;
  signal: string | null;
  at: number;
}

/** Shared sink of every captured line, and of exits nobody asked for. */
export class LogBook {
  readonly entries: LogEntry[] = [];
  readonly unexpectedExits: UnexpectedExit[] = [];
  private readonly files = new Map<string, WriteStream>();

  constructor(private readonly dir: string) {}

  add(process: string, line: string): void {
    this.entries.push({ process, line, at: Date.now() });
    let file = this.files.get(process);
    if (!file) {
      file = createWriteStream(`${this.dir}/${process}.log`, { flags: 'a' });
      this.files.set(process, file);
    }
    file.write(line + '\n');
  }

  close(): Promise<void> {
    return Promise.all(
      [...this.files.values()].map((f) => new Promise<void>((r) => f.end(() => r()))),
    ).then(() => undefined);
  }
}

export class ManagedProcess {
  private child?: ChildProcess;
  private expectingExit = false;
  private exited?: Promise<void>;
  /** How many times the process was started (1 after the first start). */
  starts = 0;

  constructor(
    readonly name: string,
    private readonly command: string,
    private readonly args: string[],
    private readonly env: NodeJS.ProcessEnv,
    private readonly logs: LogBook,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  start(): void {
    if (this.running) throw new Error(`${this.name} is already running`);
    this.expectingExit = false;
    const child = spawn(this.command, this.args, {
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.starts++;
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) =>
        this.logs.add(this.name, line),
      );
    }
    this.exited = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        if (!this.expectingExit) {
          this.logs.unexpectedExits.push({ process: this.name, code, signal, at: Date.now() });
          this.logs.add(this.name, `[suite] exited unexpectedly: code ${code} signal ${signal}`);
        }
        resolve();
      });
    });
  }

  /** Last resort when the suite itself is exiting: no waiting, no bookkeeping. */
  killNow(): void {
    this.expectingExit = true;
    if (this.running) this.child!.kill('SIGKILL');
  }

  /** Sends the signal and waits for the exit (SIGKILL after `graceMs` for a polite signal). */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 15_000): Promise<void> {
    if (!this.child || !this.running) return;
    this.expectingExit = true;
    this.logs.add(this.name, `[suite] sending ${signal}`);
    this.child.kill(signal);
    if (signal === 'SIGKILL') return this.exited;
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}
