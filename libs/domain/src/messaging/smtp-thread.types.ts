// The messages between the delivery worker and its SMTP thread (smtp-thread.js): what the thread
// is given once, what each send asks, and what it answers.
import type { SendMailOptions } from 'nodemailer';

export const SMTP_TIMEOUTS = {
  connectionTimeout: 30_000,
  greetingTimeout: 30_000,
  socketTimeout: 120_000,
};

/** What every pool of the thread shares; given once, when the thread starts. */
export interface SmtpThreadConfig {
  poolSize: number;
  localAddress?: string;
  /** Smarthost credentials, for the smarthost's pool only. */
  auth?: { user: string; pass: string };
  /** MX delivery: STARTTLS when offered, without insisting on a valid certificate. */
  opportunisticTls: boolean;
  timeouts: typeof SMTP_TIMEOUTS;
}

/** The SMTP envelope of one transaction: MAIL FROM and the RCPT TO addresses. */
export interface SmtpEnvelope {
  from: string;
  to: string[];
}

export interface SmtpTarget {
  host: string;
  /** The server's name when `host` is its address: TLS SNI (an MX host, resolved and checked). */
  servername?: string;
  port: number;
  secure: boolean;
  /** The smarthost's pool (gets the configured credentials). */
  smarthost: boolean;
}

/**
 * A message as the SMTP thread takes it: the options it composes the MIME from, or the bytes of
 * one already built (a relayed message, a signed one); never with a DKIM key (signing is done in
 * the build threads).
 */
export type SmtpMail = Omit<SendMailOptions, 'dkim'>;

/** One send: the message, the envelope of its transaction, and the server it goes to. */
export interface SmtpThreadRequest {
  target: SmtpTarget;
  mail: SmtpMail;
  envelope: SmtpEnvelope;
}

export interface SmtpRejection {
  recipient?: string;
  response?: string;
  responseCode?: number;
}

/** What nodemailer answered, as plain data (an Error's own properties do not survive postMessage). */
export interface SmtpOutcome {
  info?: { response?: string; rejectedErrors?: SmtpRejection[] };
  err?: {
    code?: string;
    message: string;
    response?: string;
    responseCode?: number;
    rejectedErrors?: SmtpRejection[];
  };
}
