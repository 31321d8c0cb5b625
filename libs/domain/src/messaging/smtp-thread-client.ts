// The main thread's handle on the SMTP thread (smtp-thread.js): started on the first send, fed
// with the message options and the envelope, answering with what the server said. A thread that
// dies (crash, terminate) answers its pending sends as connection failures, which the delivery
// records as deferrals, and the next send starts a new one.
import { Logger } from '@nestjs/common';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { SendMailOptions } from 'nodemailer';
import type {
  SmtpEnvelope,
  SmtpOutcome,
  SmtpTarget,
  SmtpThreadConfig,
  SmtpThreadReply,
} from './smtp-thread.types';

/** The thread's code: plain JavaScript next to this file, built or not. */
const THREAD_SCRIPT = join(__dirname, 'smtp-thread.js');

interface Running {
  worker: Worker;
  pending: Map<number, (outcome: SmtpOutcome) => void>;
  exited: Promise<void>;
}

function failure(code: string, message: string): SmtpOutcome {
  return { err: { code, message } };
}

export class SmtpThread {
  private readonly logger = new Logger(SmtpThread.name);
  private running: Running | null = null;
  private nextId = 0;
  private closing: Promise<void> | null = null;

  constructor(private readonly config: SmtpThreadConfig) {}

  /** Sends one message through the thread's pool for `target`. Never rejects. */
  send(target: SmtpTarget, mail: SendMailOptions, envelope: SmtpEnvelope): Promise<SmtpOutcome> {
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
    const worker = new Worker(THREAD_SCRIPT, { workerData: { smtpThread: this.config } });
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
