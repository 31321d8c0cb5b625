// A worker thread that answers requests: started on the first request, each request posted with
// an id and answered by the message carrying that id. A thread that dies (crash, terminate)
// answers its pending requests with the owner's `lost` answer, and the next request starts a new
// one. The thread's script speaks the protocol of RequestThreadMessage.
import { Logger } from '@nestjs/common';
import { Worker } from 'node:worker_threads';

/** What the thread is posted: a request with its id, or the request to end. */
export type RequestThreadMessage<Req> =
  { type: 'request'; id: number; body: Req } | { type: 'close' };

/** What the thread posts back: the answer to request `id`. */
export interface RequestThreadReply<Res> {
  id: number;
  body: Res;
}

export interface RequestThreadOptions<Res> {
  /** The thread's script (plain JavaScript, loaded as it is whether the app is built or not). */
  script: string;
  /** Given to the script once, when the thread starts. */
  workerData: unknown;
  /** For the log lines. */
  name: string;
  /** The answer to a request the thread did not answer: why, in a code and a sentence. */
  lost(code: 'ETHREAD' | 'EMESSAGE' | 'ESHUTDOWN', message: string): Res;
}

interface Running<Res> {
  worker: Worker;
  pending: Map<number, (answer: Res) => void>;
  exited: Promise<void>;
}

export class RequestThread<Req, Res> {
  private readonly logger: Logger;
  private running: Running<Res> | null = null;
  private nextId = 0;
  private closing: Promise<void> | null = null;

  constructor(private readonly options: RequestThreadOptions<Res>) {
    this.logger = new Logger(options.name);
  }

  /** Posts one request and answers with the thread's reply. Never rejects. */
  request(body: Req): Promise<Res> {
    const { lost } = this.options;
    if (this.closing) return Promise.resolve(lost('ESHUTDOWN', 'the worker is shutting down'));
    let running: Running<Res>;
    try {
      running = this.running ?? this.start();
    } catch (err) {
      // Not even started (its code could not be loaded): answered like a thread that died.
      this.logger.error({ msg: 'thread did not start', err: (err as Error).message });
      return Promise.resolve(lost('ETHREAD', `the ${this.options.name} did not start`));
    }
    const id = ++this.nextId;
    return new Promise<Res>((resolve) => {
      running.pending.set(id, resolve);
      try {
        running.worker.postMessage({ type: 'request', id, body } as RequestThreadMessage<Req>);
      } catch (err) {
        // Content the structured clone cannot copy: an answer like any other failure.
        running.pending.delete(id);
        resolve(lost('EMESSAGE', (err as Error).message));
      }
    });
  }

  /** Requests posted and not answered yet. */
  get pending(): number {
    return this.running?.pending.size ?? 0;
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
   * Graceful stop: the thread is asked to end (what it does with requests in hand is its own);
   * new requests are answered as `ESHUTDOWN`. Resolves when the thread has ended.
   */
  close(): Promise<void> {
    if (!this.closing) {
      const running = this.running;
      if (running) running.worker.postMessage({ type: 'close' } as RequestThreadMessage<Req>);
      this.closing = running ? running.exited : Promise.resolve();
    }
    return this.closing;
  }

  private start(): Running<Res> {
    const { script, workerData, lost, name } = this.options;
    const worker = new Worker(script, { workerData });
    const pending = new Map<number, (answer: Res) => void>();
    const running: Running<Res> = {
      worker,
      pending,
      exited: new Promise<void>((resolve) => {
        worker.once('exit', (code) => {
          if (this.running === running) this.running = null;
          if (pending.size || (code !== 0 && !this.closing)) {
            this.logger.warn({ msg: 'thread ended', exitCode: code, pending: pending.size });
          }
          for (const answer of pending.values()) {
            answer(lost('ETHREAD', `the ${name} stopped before answering`));
          }
          pending.clear();
          resolve();
        });
      }),
    };
    worker.on('message', (reply: RequestThreadReply<Res>) => {
      const answer = pending.get(reply.id);
      pending.delete(reply.id);
      answer?.(reply.body);
    });
    worker.on('error', (err) => this.logger.error({ msg: 'thread failed', err: err.message }));
    this.running = running;
    return running;
  }
}
