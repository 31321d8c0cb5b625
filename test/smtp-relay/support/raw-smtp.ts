// A bare SMTP client over one TCP connection for the relay's e2e tests: a session that outlives a
// refusal, and DATA written in pieces with backpressure.
import { connect, Socket } from 'node:net';

export interface Reply {
  code: number;
  text: string;
}

export class RawSmtp {
  private buffer = '';
  private readonly replies: Reply[] = [];
  private waiter?: () => void;
  private closed = false;

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      let at: number;
      while ((at = this.buffer.indexOf('\r\n')) >= 0) {
        const line = this.buffer.slice(0, at);
        this.buffer = this.buffer.slice(at + 2);
        // The last line of a multi-line reply has a space after the code.
        if (/^\d{3} /.test(line) || /^\d{3}$/.test(line))
          this.replies.push({ code: Number(line.slice(0, 3)), text: line.slice(4) });
      }
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => undefined);
  }

  /** Connects and reads the greeting. */
  static async open(port: number): Promise<RawSmtp> {
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const s = new RawSmtp(socket);
    const greeting = await s.reply();
    if (greeting.code !== 220) throw new Error(`greeting ${greeting.code} ${greeting.text}`);
    return s;
  }

  /** Greeting, EHLO and AUTH PLAIN with the key. */
  static async authenticated(port: number, key: string): Promise<RawSmtp> {
    const s = await RawSmtp.open(port);
    await s.expect('EHLO client.test', 250);
    await s.expect(`AUTH PLAIN ${Buffer.from(`\0user\0${key}`).toString('base64')}`, 235);
    return s;
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }

  async reply(timeoutMs = 30_000): Promise<Reply> {
    const until = Date.now() + timeoutMs;
    while (!this.replies.length) {
      if (this.closed) throw new Error('the relay closed the connection');
      if (Date.now() > until) throw new Error(`no reply within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, until - Date.now());
        this.waiter = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
    return this.replies.shift()!;
  }

  async command(line: string): Promise<Reply> {
    this.socket.write(`${line}\r\n`, 'latin1');
    return this.reply();
  }

  async expect(line: string, code: number): Promise<Reply> {
    const r = await this.command(line);
    if (r.code !== code)
      throw new Error(`${line.slice(0, 40)}: expected ${code}, got ${r.code} ${r.text}`);
    return r;
  }

  /** Writes bytes as they are, waiting for the socket to drain when it asks to. */
  async write(data: Buffer | string): Promise<void> {
    if (this.closed) throw new Error('the relay closed the connection');
    if (!this.socket.write(data)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.socket.off('drain', done);
          this.socket.off('close', done);
          resolve();
        };
        this.socket.on('drain', done);
        this.socket.on('close', done);
      });
    }
  }

  async quit(): Promise<void> {
    if (this.closed) return;
    const closed = new Promise((resolve) => this.socket.once('close', resolve));
    this.socket.end('QUIT\r\n');
    await closed;
  }
}
