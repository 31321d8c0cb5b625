// Outbound SMTP (§8): nodemailer pooled transports (in their own thread, smtp-thread.js), to
// SMTP_OUTBOUND_URL when set, else to each recipient domain's MX on port 25, at an address the
// private-address guard checked (§16); a message to sign is built and signed once, in the build
// threads (mail-build-threads.ts). Reports what the server answered for every recipient.
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { createSocket } from 'node:dgram';
import { isIP } from 'node:net';
import type { SendMailOptions } from 'nodemailer';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { DnsResolver } from '../dns/resolver';
import { resolveTarget, TargetNotAllowedError } from '../dns/target';
import { domainOf } from './address';
import { cleanSmtpMessage, replyCode } from './delivery-policy';
import { BuildError, BuiltMail, MailBuildThreads } from './mail-build-threads';
import { SmtpThread } from './smtp-thread-client';
import {
  SMTP_TIMEOUTS,
  SmtpEnvelope,
  SmtpMail,
  SmtpOutcome,
  SmtpTarget,
} from './smtp-thread.types';

export { SMTP_TIMEOUTS } from './smtp-thread.types';
export type { SmtpEnvelope } from './smtp-thread.types';

export interface SmtpRecipientResult {
  email: string;
  /** Null when no SMTP answer was had (connection refused, timeout, DNS, refused MX). */
  code: number | null;
  message: string | null;
  mxHost: string | null;
  outboundIp: string | null;
  /**
   * Not sent, and sending again would not help: every mail server of the domain is refused
   * (private addresses, §16) or the domain accepts no mail (null MX).
   */
  refused?: true;
}

/** What the MX delivery resolves names with: the platform's DnsResolver. */
export type MxResolver = Pick<DnsResolver, 'resolveMx' | 'lookup'>;

/** Per-recipient answers of one SMTP transaction (a success or the error nodemailer gave). */
export function recipientResults(
  recipients: string[],
  outcome: SmtpOutcome,
  mxHost: string | null,
  outboundIp: string | null,
): SmtpRecipientResult[] {
  const perRecipient = new Map<string, { code: number | null; message: string | null }>();
  const rejected = outcome.info?.rejectedErrors ?? outcome.err?.rejectedErrors ?? [];
  for (const r of rejected) {
    if (!r.recipient) continue;
    perRecipient.set(r.recipient.toLowerCase(), {
      code: r.responseCode ?? replyCode(r.response),
      message: cleanSmtpMessage(r.response),
    });
  }
  let whole: { code: number | null; message: string | null };
  if (outcome.err) {
    const e = outcome.err;
    const code = e.responseCode ?? replyCode(e.response);
    whole = {
      code,
      message: cleanSmtpMessage(code !== null ? e.response : `${e.code ?? 'ERROR'}: ${e.message}`),
    };
  } else {
    whole = {
      code: replyCode(outcome.info?.response),
      message: cleanSmtpMessage(outcome.info?.response),
    };
  }
  return recipients.map((email) => ({
    email,
    ...(perRecipient.get(email.toLowerCase()) ?? whole),
    mxHost,
    outboundIp,
  }));
}

@Injectable()
export class SmtpOutbound implements OnModuleDestroy {
  private readonly logger = new Logger(SmtpOutbound.name);
  /** nodemailer's pools live in their own thread (smtp-thread.js). */
  private readonly thread: SmtpThread;
  private readonly builders = new MailBuildThreads();
  /**
   * Each signed message is built once: the transactions of one message (a recipient each, or a
   * domain each) send the same bytes, their envelopes apart.
   */
  private readonly built = new WeakMap<SendMailOptions, Promise<BuiltMail>>();
  private readonly localAddresses = new Map<string, Promise<string | null>>();
  private readonly smarthost?: SmtpTarget;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DnsResolver) private readonly dns: MxResolver,
  ) {
    let auth: { user: string; pass: string } | undefined;
    if (config.smtpOutboundUrl) {
      const u = new URL(config.smtpOutboundUrl);
      const secure = u.protocol === 'smtps:';
      this.smarthost = {
        host: u.hostname.replace(/^\[|\]$/g, ''),
        port: u.port ? Number(u.port) : secure ? 465 : 587,
        secure,
        smarthost: true,
      };
      auth = u.username
        ? { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) }
        : undefined;
    }
    this.thread = new SmtpThread({
      poolSize: config.smtpOutboundPoolSize,
      localAddress: config.smtpOutboundIp,
      auth,
      opportunisticTls: !this.smarthost,
      timeouts: SMTP_TIMEOUTS,
    });
  }

  /**
   * Sends one message to the envelope's recipients (the headers are in `mail`) and reports the
   * answer for each recipient, in the envelope's order. Never throws for an SMTP or network
   * failure: that is an answer.
   */
  async send(options: SendMailOptions, envelope: SmtpEnvelope): Promise<SmtpRecipientResult[]> {
    const { from, to } = envelope;
    const { mail, err } = await this.prepare(options);
    if (!mail) return recipientResults(to, { err }, null, null);
    if (this.smarthost) return this.transact(this.smarthost, mail, from, to);
    const byDomain = new Map<string, string[]>();
    for (const r of to) {
      const d = domainOf(r);
      byDomain.set(d, [...(byDomain.get(d) ?? []), r]);
    }
    const results = await Promise.all(
      [...byDomain].map(([domain, rcpts]) => this.sendToDomain(domain, mail, from, rcpts)),
    );
    const byRecipient = new Map(results.flat().map((r) => [r.email, r]));
    return to.map((email) => byRecipient.get(email)!);
  }

  /**
   * What the SMTP thread sends. A message to sign is built (and signed) in the build threads, once
   * per options object; any other goes as it is, composed by the SMTP thread as it sends.
   */
  private async prepare(
    options: SendMailOptions,
  ): Promise<{ mail: SmtpMail; err?: undefined } | { mail?: undefined; err: BuildError }> {
    const { dkim, ...mail } = options;
    if (!dkim) return { mail };
    let building = this.built.get(options);
    if (!building) {
      building = this.builders.build(options);
      this.built.set(options, building);
    }
    const built = await building;
    return built.err ? { err: built.err } : { mail: { raw: built.raw } };
  }

  private async sendToDomain(
    domain: string,
    mail: SmtpMail,
    from: string,
    rcpts: string[],
  ): Promise<SmtpRecipientResult[]> {
    const answer = (message: string, mxHost: string | null, refused?: true) =>
      rcpts.map((email) => ({
        email,
        code: null,
        message: cleanSmtpMessage(message),
        mxHost,
        outboundIp: null,
        ...(refused && { refused }),
      }));
    let hosts: string[];
    try {
      hosts = await this.mxHosts(domain);
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      return answer(`EDNS: no mail server found for ${domain} (${e.code ?? e.message})`, null);
    }
    if (!hosts.length) return answer(`Refused: ${domain} accepts no mail (null MX)`, null, true);
    const allowPrivate = this.config.deliveryAllowPrivateMx;
    let last: SmtpRecipientResult[] | undefined;
    let refusal: SmtpRecipientResult[] | undefined;
    for (const host of hosts) {
      let address: string;
      try {
        // Resolved once and checked; the connection goes to this very address.
        ({ address } = await resolveTarget(host, allowPrivate, (h) => this.dns.lookup(h)));
      } catch (err) {
        if (err instanceof TargetNotAllowedError) {
          refusal ??= answer(
            `Refused: mail server ${host} is ${err.address}, ${err.reason}`,
            host,
            true,
          );
        } else {
          const e = err as NodeJS.ErrnoException;
          last = answer(`EDNS: no address for mail server ${host} (${e.code ?? e.message})`, host);
        }
        continue;
      }
      last = await this.transact(
        { host: address, servername: host, port: 25, secure: false, smarthost: false },
        mail,
        from,
        rcpts,
      );
      // Only a connection-level failure moves on to the next MX; an SMTP answer is final.
      if (last.some((r) => r.code !== null)) return last;
    }
    // A server that could not be reached may be reachable later; refused ones will not be.
    return last ?? refusal!;
  }

  /** MX hosts by preference; the domain itself when it has no MX record (RFC 5321 §5.1). */
  async mxHosts(domain: string): Promise<string[]> {
    try {
      const records = await this.dns.resolveMx(domain);
      if (records.length) {
        return records
          .sort((a, b) => a.priority - b.priority)
          .map((r) => r.exchange)
          .filter((h) => h && h !== '.');
      }
    } catch (err) {
      // ENODATA: the domain exists without an MX record. Anything else (NXDOMAIN...) is final.
      if ((err as NodeJS.ErrnoException).code !== 'ENODATA') throw err;
    }
    return [domain];
  }

  private async transact(
    target: SmtpTarget,
    mail: SmtpMail,
    from: string,
    rcpts: string[],
  ): Promise<SmtpRecipientResult[]> {
    const [outboundIp, outcome] = await Promise.all([
      this.outboundIp(target.host),
      this.thread.send(target, mail, { from, to: rcpts }),
    ]);
    return recipientResults(rcpts, outcome, target.servername ?? target.host, outboundIp);
  }

  /**
   * The local address outbound SMTP to `host` leaves from: SMTP_OUTBOUND_IP when configured,
   * else what the routing table picks (a connected UDP socket sends nothing but knows its source).
   */
  private outboundIp(host: string): Promise<string | null> {
    if (this.config.smtpOutboundIp) return Promise.resolve(this.config.smtpOutboundIp);
    let found = this.localAddresses.get(host);
    if (!found) {
      found = new Promise<string | null>((resolve) => {
        const socket = createSocket(isIP(host) === 6 ? 'udp6' : 'udp4');
        const done = (v: string | null) => {
          socket.close();
          resolve(v);
        };
        socket.on('error', () => done(null));
        socket.connect(25, host, () => done(socket.address().address));
      });
      this.localAddresses.set(host, found);
      void found.then((v) => v === null && this.localAddresses.delete(host));
    }
    return found;
  }

  /** The SMTP thread (tests: crash it, watch it restart). */
  get smtpThread(): SmtpThread {
    return this.thread;
  }

  /**
   * Shutdown: messages already on a connection finish; the others, and any send from here on,
   * are answered as connection failures and so deferred (retried later, never lost).
   */
  async onModuleDestroy(): Promise<void> {
    await this.thread.close();
    await this.builders.close();
    this.logger.debug({ msg: 'outbound SMTP and mail build threads ended' });
  }
}
