// One raw SMTP connection for the SMTP fuzzing (smtp-fuzz.ts, smtp-floods.ts): bytes written as
// given, replies read multi-line aware, every wait with a deadline.
import { connect, Socket } from 'node:net';

export interface Reply {
  code: number;
  lines: string[];
}

export class ProtocolError extends Error {}

/** One raw SMTP connection: write bytes, read replies (multi-line aware), with deadlines. */
export class SmtpSession {
  private buffer = '';
  private waiters: Array<() => void> = [];
  readonly replies: Reply[] = [];
  private pending: string[] = [];
  closed = false;
  bad: string[] = [];

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      let at: number;
      while ((at = this.buffer.indexOf('\r\n')) >= 0) {
        const line = this.buffer.slice(0, at);
        this.buffer = this.buffer.slice(at + 2);
        const m = /^([2-5]\d\d)([ -])(.*)$/.exec(line);
        if (!m) {
          this.bad.push(line.slice(0, 120));
          continue;
        }
        this.pending.push(line);
        if (m[2] === ' ') {
          this.replies.push({ code: Number(m[1]), lines: this.pending });
          this.pending = [];
        }
      }
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => undefined);
  }

  static open(host: string, port: number, localAddress?: string): Promise<SmtpSession> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port, localAddress });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new ProtocolError('connect timed out'));
      }, 10_000);
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve(new SmtpSession(socket));
      });
      socket.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  private wake() {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  private read = 0;

  /** The next reply; throws ProtocolError on a deadline, null when the server closed first. */
  async reply(timeoutMs = 15_000): Promise<Reply | null> {
    const until = Date.now() + timeoutMs;
    while (this.read >= this.replies.length) {
      if (this.closed) return null;
      const left = until - Date.now();
      if (left <= 0) throw new ProtocolError(`no reply within ${timeoutMs} ms`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
    return this.replies[this.read++];
  }

  write(data: string | Buffer): void {
    if (!this.closed)
      this.socket.write(typeof data === 'string' ? Buffer.from(data, 'latin1') : data);
  }

  /**
   * Writes and waits until the socket takes more (a large DATA is streamed without being queued
   * whole in this process); false when the server closed the connection.
   */
  async send(data: Buffer, timeoutMs = 30_000): Promise<boolean> {
    if (this.closed) return false;
    if (this.socket.write(data)) return true;
    await new Promise<void>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      const timer = setTimeout(() => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        reject(new ProtocolError(`the server took no data for ${timeoutMs} ms`));
      }, timeoutMs);
      this.socket.on('drain', done);
      this.socket.on('close', done);
    });
    return !this.closed;
  }

  async command(line: string | Buffer, timeoutMs?: number): Promise<Reply | null> {
    this.write(
      typeof line === 'string' ? `${line}\r\n` : Buffer.concat([line, Buffer.from('\r\n')]),
    );
    return this.reply(timeoutMs);
  }

  /** Every reply until the server closes (or the deadline: a hang). */
  async drain(timeoutMs = 20_000): Promise<Reply[]> {
    const out: Reply[] = [];
    for (;;) {
      const r = await this.reply(timeoutMs);
      if (!r) return out;
      out.push(r);
    }
  }

  destroy(): void {
    this.socket.destroy();
  }
}

export const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
