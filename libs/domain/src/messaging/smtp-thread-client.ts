// The main thread's handle on the SMTP thread (smtp-thread.js): started on the first send, fed
// with the built message and the envelope, answering with what the server said. A thread that
// dies (crash, terminate) answers its pending sends as connection failures, which the delivery
// records as deferrals, and the next send starts a new one.
import { join } from 'node:path';
import { RequestThread } from '../common/request-thread';
import type {
  SmtpEnvelope,
  SmtpMail,
  SmtpOutcome,
  SmtpTarget,
  SmtpThreadConfig,
  SmtpThreadRequest,
} from './smtp-thread.types';

/** The thread's code: plain JavaScript next to this file, built or not. */
const THREAD_SCRIPT = join(__dirname, 'smtp-thread.js');

export class SmtpThread {
  private readonly thread: RequestThread<SmtpThreadRequest, SmtpOutcome>;

  constructor(config: SmtpThreadConfig) {
    this.thread = new RequestThread<SmtpThreadRequest, SmtpOutcome>({
      script: THREAD_SCRIPT,
      workerData: { smtpThread: config },
      name: 'SMTP thread',
      lost: (code, message) => ({ err: { code, message } }),
    });
  }

  /** Sends one message through the thread's pool for `target`. Never rejects. */
  send(target: SmtpTarget, mail: SmtpMail, envelope: SmtpEnvelope): Promise<SmtpOutcome> {
    return this.thread.request({ target, mail, envelope });
  }

  /** Thread id of the running thread (tests), or null. */
  get threadId(): number | null {
    return this.thread.threadId;
  }

  /** Stops the running thread at once, as a crash would (tests). */
  terminate(): Promise<void> {
    return this.thread.terminate();
  }

  /**
   * Graceful stop: messages on a connection finish, queued ones fail (deferred), new sends are
   * refused (deferred); resolves when the thread has ended.
   */
  close(): Promise<void> {
    return this.thread.close();
  }
}
