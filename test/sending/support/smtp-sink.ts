// A real SMTP server on loopback that the worker delivers to: it records envelopes and parsed
// messages, and can answer RCPT TO or DATA with any reply code a test asks for.
import { simpleParser, ParsedMail } from 'mailparser';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { waitFor } from '../../support/wait-for';

export interface SinkMessage {
  from: string;
  to: string[];
  raw: string;
  parsed: ParsedMail;
}

export interface SmtpReply {
  code: number;
  message: string;
}

export interface SmtpSink {
  port: number;
  url: string;
  messages: SinkMessage[];
  /** Every RCPT TO the sink was asked for, accepted or not. */
  rcptSeen: string[];
  /** Answer for one RCPT TO; null or undefined accepts it. A promise holds the answer back. */
  onRcpt?: (
    address: string,
  ) => SmtpReply | null | undefined | Promise<SmtpReply | null | undefined>;
  waitForMessages(count: number, timeoutMs?: number): Promise<SinkMessage[]>;
  close(): Promise<void>;
}

function refusal(reply: SmtpReply): Error {
  const err = new Error(reply.message) as Error & { responseCode: number };
  err.responseCode = reply.code;
  return err;
}

export async function startSmtpSink(port = 0): Promise<SmtpSink> {
  const sink: SmtpSink = {
    port: 0,
    url: '',
    messages: [],
    rcptSeen: [],
    waitForMessages: (count, timeoutMs = 15_000) =>
      waitFor(() => sink.messages.length >= count && sink.messages, {
        what: `${count} messages at the sink`,
        timeoutMs,
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    disableReverseLookup: true,
    logger: false,
    // Pooled clients keep idle connections open: on close, drop them instead of waiting 30 s.
    closeTimeout: 100,
    onRcptTo(address, _session, cb) {
      sink.rcptSeen.push(address.address);
      void Promise.resolve(sink.onRcpt?.(address.address)).then((reply) =>
        reply ? cb(refusal(reply)) : cb(),
      );
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw)
          .then((parsed) => {
            sink.messages.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
              raw,
              parsed,
            });
            cb();
          })
          .catch((err: Error) => cb(err));
      });
    },
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  sink.port = (server.server.address() as AddressInfo).port;
  sink.url = `smtp://127.0.0.1:${sink.port}`;
  return sink;
}
