// The main thread's handle on the SMTP thread (smtp-thread.ts): started on the first send, fed
// with the message options and the envelope, answering with what the server said. A thread that
// dies (crash, terminate) answers its pending sends as connection failures, which the delivery
// records as deferrals, and the next send starts a new one.
import { Logger } from '@nestjs/common';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { SendMailOptions } from 'nodemailer';
import type { SmtpOutcome, SmtpTarget, SmtpThreadConfig, SmtpThreadReply } from './smtp-thread';

interface Running {
  worker: Worker;
  pending: Map<number, (outcome: SmtpOutcome) => void>;
  exited: Promise<void>;
}

function failure(code: string, message: string): SmtpOutcome {
  return { err: { code, message } };
}

/**
 * The thread's code: the compiled file next to this one, or, when the app runs from its
 * TypeScript sources (tests, `-r ts-register`), that one file transpiled (it imports only
 * nodemailer and node, so it needs nothing else).
 */
function threadScript(): { script: string; eval: boolean } {
  const js = join(__dirname, 'smtp-thread.js');
  if (existsSync(js)) return { script: js, eval: false };
  const source = join(__dirname, 'smtp-thread.ts');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ts = require('typescript') as typeof import('typescript');
  const code = ts.transpileModule(readFileSync(source, 'utf8'), {
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
    },
    fileName: source,
  }).outputText;
  // Its own require, resolving from the source file (an eval'd script's resolves from the cwd).
  const wrapped =
    `(function (exports, require, module) {\n${code}\n})({}, ` +
    `require('node:module').createRequire(${JSON.stringify(source)}), { exports: {} });`;
  return { script: wrapped, eval: true };
}

export class SmtpThread {
  private readonly logger = new Logger(SmtpThread.name);
  private running: Running | null = null;
  private nextId = 0;
  private closing: Promise<void> | null = null;

  constructor(private readonly config: SmtpThreadConfig) {}

  /** Sends one message through the thread's pool for `target`. Never rejects. */
  send(
    target: SmtpTarget,
    mail: SendMailOptions,
    envelope: { from: string; to: string[] },
  ): Promise<SmtpOutcome> {
    if (this.closing) {
      return Promise.resolve(failure('ESHUTDOWN', 'the worker is shutting down'));
    }
    let running: Running;
    try {
      running = this.running ?? this.start();
    } catch (err) {
      // Not even started (its code could not be loaded): deferred like any connection failure.
      this.logger.error({ msg: 'SMTP thread did not start', err: (err as Error).message });
      return Promise.resolve(failure('ETHREAD', 'the SMTP thread did not start'));
    }
    const id = ++this.nextId;
    return new Promise<SmtpOutcome>((resolve) => {
      running.pending.set(id, resolve);
      try {
        running.worker.postMessage({ type: 'send', id, target, mail, envelope });
      } catch (err) {
        // Content the structured clone cannot copy: an answer like any other failure.
        running.pending.delete(id);
        resolve(failure('EMESSAGE', (err as Error).message));
      }
    });
  }

  /** Thread id of the running thread (tests), or null. */
  get threadId(): number | null {
    return this.running?.worker.threadId ?? null;
  }

  /** Stops the running thread at once, as a crash would (tests). */
  async terminate(): Promise<void> {
    const running = this.running;
    if (!running) return;
    await running.worker.terminate();
    await running.exited;
  }

  /**
   * Graceful stop: messages on a connection finish, queued ones fail (deferred), new sends are
   * refused (deferred); resolves when the thread has ended.
   */
  close(): Promise<void> {
    if (!this.closing) {
      const running = this.running;
      if (running) running.worker.postMessage({ type: 'close' });
      this.closing = running ? running.exited : Promise.resolve();
    }
    return this.closing;
  }

  private start(): Running {
    const { script, eval: evaluate } = threadScript();
    const worker = new Worker(script, {
      eval: evaluate,
      workerData: { smtpThread: this.config },
    });
    const pending = new Map<number, (outcome: SmtpOutcome) => void>();
    const running: Running = {
      worker,
      pending,
      exited: new Promise<void>((resolve) => {
        worker.once('exit', (code) => {
          if (this.running === running) this.running = null;
          if (pending.size || (code !== 0 && !this.closing)) {
            this.logger.warn({ msg: 'SMTP thread ended', exitCode: code, pending: pending.size });
          }
          for (const answer of pending.values()) {
            answer(failure('ETHREAD', 'the SMTP thread stopped before answering'));
          }
          pending.clear();
          resolve();
        });
      }),
    };
    worker.on('message', (reply: SmtpThreadReply) => {
      const answer = pending.get(reply.id);
      pending.delete(reply.id);
      answer?.({ info: reply.info, err: reply.err });
    });
    worker.on('error', (err) => this.logger.error({ msg: 'SMTP thread failed', err: err.message }));
    this.running = running;
    return running;
  }
}
