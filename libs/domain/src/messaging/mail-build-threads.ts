// The threads that build the outgoing messages to sign (mail-build-thread.js): one per core, each
// request given to the thread with the fewest in hand. A message is composed and DKIM-signed
// there, so the RSA signatures use every core while the event loop and the SMTP thread keep to
// I/O.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { SendMailOptions } from 'nodemailer';
import { RequestThread } from '../common/request-thread';

/** The thread's code: plain JavaScript next to this file, built or not. */
const THREAD_SCRIPT = join(__dirname, 'mail-build-thread.js');

/** A built message (its bytes, as they go out), or why it could not be built. */
export type BuiltMail = { raw: Buffer; err?: undefined } | { raw?: undefined; err: BuildError };

export interface BuildError {
  code: string;
  message: string;
}

export class MailBuildThreads {
  private readonly threads: RequestThread<SendMailOptions, BuiltMail>[];

  constructor(size = availableParallelism()) {
    this.threads = Array.from(
      { length: Math.max(1, size) },
      () =>
        new RequestThread<SendMailOptions, BuiltMail>({
          script: THREAD_SCRIPT,
          workerData: { mailBuildThread: true },
          name: 'mail build thread',
          lost: (code, message) => ({ err: { code, message } }),
        }),
    );
  }

  /** Composes (and, with `dkim`, signs) one message. Never rejects. */
  async build(mail: SendMailOptions): Promise<BuiltMail> {
    const thread = this.threads.reduce((a, b) => (b.pending < a.pending ? b : a));
    const built = await thread.request(mail);
    // A Buffer arrives as a plain Uint8Array.
    if (built.raw && !Buffer.isBuffer(built.raw)) {
      const r = built.raw as Uint8Array;
      return { raw: Buffer.from(r.buffer, r.byteOffset, r.byteLength) };
    }
    return built;
  }

  /** Ends the threads once they have answered what they were given. */
  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.close()));
  }
}
