// DKIM keys (§13): one 2048-bit RSA pair per sending domain, made at creation, with a selector of
// its own so that a new key can later be published next to the old one. The pair is generated in
// a small pool of worker threads (dkim-key.thread.js), never on libuv's threadpool: there a burst
// of creates would queue every other organization's login (scrypt) behind seconds of RSA work.
import { Logger, OnModuleDestroy } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

export const DKIM_KEY_BITS = 2048;
/** Threads generating keys at once; further creates wait in line for one of them. */
export const DKIM_KEY_THREADS = 1;

/** The thread's code: plain JavaScript next to this file, built or not. */
const THREAD_SCRIPT = join(__dirname, 'dkim-key.thread.js');

export interface DkimKeyPair {
  selector: string;
  /** Base64 SubjectPublicKeyInfo (DER): the `p=` tag of the DKIM record. */
  publicKey: string;
  /** PKCS#8 PEM. */
  privateKey: string;
}

/** A new pair and where and when it was made (epoch milliseconds, sub-millisecond precision). */
export interface GeneratedDkimKey extends DkimKeyPair {
  threadId: number;
  startedAt: number;
  endedAt: number;
}

type ThreadReply =
  | { id: number; error: string }
  | {
      id: number;
      publicKey: string;
      privateKey: string;
      threadId: number;
      startedAt: number;
      endedAt: number;
    };

interface Job {
  id: number;
  resolve(key: GeneratedDkimKey): void;
  reject(err: Error): void;
}

interface KeyThread {
  worker: Worker;
  job: Job | null;
}

/** `mp` and ten hex digits: a DNS label unique enough that two keys of one name never share it. */
export function newSelector(): string {
  return `mp${randomBytes(5).toString('hex')}`;
}

/**
 * Key pairs of `bits` bits from at most `size` threads, started on the first request and kept;
 * requests beyond wait in order. A thread that dies fails its request and the next one starts a
 * new thread.
 */
export class DkimKeyGenerator implements OnModuleDestroy {
  private readonly logger = new Logger(DkimKeyGenerator.name);
  private readonly threads: KeyThread[] = [];
  private readonly waiting: Job[] = [];
  private nextId = 0;
  private closed = false;

  constructor(
    private readonly size = DKIM_KEY_THREADS,
    private readonly bits = DKIM_KEY_BITS,
  ) {}

  generate(): Promise<GeneratedDkimKey> {
    if (this.closed) return Promise.reject(new Error('DKIM key generation has stopped'));
    return new Promise<GeneratedDkimKey>((resolve, reject) => {
      this.waiting.push({ id: ++this.nextId, resolve, reject });
      this.dispatch();
    });
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    for (const job of this.waiting.splice(0)) job.reject(new Error('DKIM key generation stopped'));
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }

  private dispatch(): void {
    while (this.waiting.length) {
      let thread = this.threads.find((t) => !t.job);
      if (!thread) {
        if (this.threads.length >= this.size) return;
        try {
          thread = this.start();
        } catch (err) {
          // Its code could not be loaded: nothing waiting can be served.
          for (const job of this.waiting.splice(0)) job.reject(err as Error);
          return;
        }
      }
      const job = this.waiting.shift()!;
      thread.job = job;
      // Only a thread at work keeps the process alive.
      thread.worker.ref();
      thread.worker.postMessage({ id: job.id, bits: this.bits });
    }
  }

  private start(): KeyThread {
    const worker = new Worker(THREAD_SCRIPT);
    const thread: KeyThread = { worker, job: null };
    worker.unref();
    worker.on('message', (reply: ThreadReply) => {
      const job = thread.job;
      thread.job = null;
      worker.unref();
      if (!job) return;
      if ('error' in reply) {
        job.reject(new Error(reply.error));
      } else {
        job.resolve({
          selector: newSelector(),
          publicKey: reply.publicKey,
          privateKey: reply.privateKey,
          threadId: reply.threadId,
          startedAt: reply.startedAt,
          endedAt: reply.endedAt,
        });
      }
      this.dispatch();
    });
    worker.on('error', (err) =>
      this.logger.error({ msg: 'DKIM key thread failed', err: err.message }),
    );
    worker.once('exit', (code) => {
      this.threads.splice(this.threads.indexOf(thread), 1);
      thread.job?.reject(new Error(`DKIM key thread ended (exit code ${code})`));
      thread.job = null;
      if (!this.closed) this.dispatch();
    });
    this.threads.push(thread);
    return thread;
  }
}
