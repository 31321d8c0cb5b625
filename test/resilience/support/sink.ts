// The SMTP server the worker delivers to (SMTP_OUTBOUND_URL): a real smtp-server that keeps every
// message it accepted, so the suite can count deliveries per Message-ID and per recipient.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { sleep } from './util';

export interface SinkMessage {
  messageId?: string;
  to: string[];
  raw: string;
  subject?: string;
  receivedAt: number;
}

/** Value of a header in the header block of a raw message (unfolded), or undefined. */
export function headerOf(raw: string, name: string): string | undefined {
  const end = raw.search(/\r?\n\r?\n/);
  const block = (end === -1 ? raw : raw.slice(0, end)).replace(/\r?\n[ \t]+/g, ' ');
  const re = new RegExp(`^${name}:[ \\t]*(.*)$`, 'im');
  return re.exec(block)?.[1]?.trim();
}

export class SmtpSink {
  private server?: SMTPServer;
  private readonly stored: SinkMessage[] = [];
  /** Milliseconds the sink waits before accepting each message (builds a delivery backlog). */
  delayMs = 0;
  port = 0;
  connectionErrors = 0;

  async start(): Promise<void> {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      disableReverseLookup: true,
      logger: false,
      closeTimeout: 100,
      size: 30 * 1024 * 1024,
      onData: (stream, session, cb) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          const accept = () => {
            // Counted when the sink answers 250: from here the message is delivered.
            this.stored.push({
              messageId: headerOf(raw, 'Message-ID'),
              subject: headerOf(raw, 'Subject'),
              to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
              raw,
              receivedAt: Date.now(),
            });
            cb(null, 'OK queued');
          };
          if (this.delayMs > 0) void sleep(this.delayMs).then(accept);
          else accept();
        });
      },
    });
    // A client that disappears mid-session (a killed worker) is a normal event here.
    this.server.on('error', () => this.connectionErrors++);
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.server.address() as AddressInfo).port;
  }

  received(): number {
    return this.stored.length;
  }

  messages(): SinkMessage[] {
    return this.stored;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }
}
