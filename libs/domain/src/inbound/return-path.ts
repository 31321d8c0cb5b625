// What inbound mail needs to know of the envelope senders the platform sends with (§13, §14):
// which hosts are our return hosts, and which message a bounce is about: by the VERP token of its
// envelope sender (`bounces+<token>@<return host>`), else by the original Message-ID, which the
// send path makes `<ULID@domain>` from the job id `job_<ULID>`.
import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { SendingDomainRepository } from '../sending-domains/sending-domain.repository';
import { VerpTokens } from '../sending-domains/verp';

/**
 * The message (and, when known, the recipient) a bounce or complaint is about: by its row id (a
 * VERP token names it) or by its job id (a Message-ID of ours names it).
 */
export interface BounceReference {
  /** messages.id, from a VERP token. */
  id: string | null;
  jobId: string | null;
  /** The original Message-ID the match came from; the message must carry exactly this one. */
  messageId: string | null;
  recipientIdx: number | null;
}

const MESSAGE_ID = /^<([0-7][0-9A-HJKMNP-TV-Z]{25})@[^<>@\s]+>$/i;

/** The job a Message-ID of ours names; null for any other Message-ID. */
export function messageIdReference(messageId: string): BounceReference | null {
  const m = MESSAGE_ID.exec(messageId.trim());
  if (!m) return null;
  return {
    id: null,
    jobId: `job_${m[1].toUpperCase()}`,
    messageId: messageId.trim(),
    recipientIdx: null,
  };
}

@Injectable()
export class ReturnPath {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly verp: VerpTokens,
    private readonly domains: SendingDomainRepository,
  ) {}

  /**
   * Whether mail to this host is ours: BOUNCE_DOMAIN, or `bounces.<domain>` of a verified sending
   * domain whose return-path record is verified (§14).
   */
  async isReturnHost(host: string): Promise<boolean> {
    if (host === this.config.sendingDomains.bounceDomain) return true;
    const domain = /^bounces\.(.+)$/.exec(host)?.[1];
    return !!domain && (await this.domains.isVerifiedReturnDomain(domain));
  }

  /** matchBounce: the message a VERP token names, else the one a Message-ID names. */
  matchBounce(ref: {
    verpToken?: string | null;
    messageId?: string | null;
  }): BounceReference | null {
    const byToken = ref.verpToken ? this.verpReference(ref.verpToken) : null;
    return byToken ?? (ref.messageId ? messageIdReference(ref.messageId) : null);
  }

  /** The message and recipient a genuine VERP token names (sending-domains/verp.ts). */
  private verpReference(token: string): BounceReference | null {
    const claims = this.verp.verify(token);
    return claims
      ? { id: claims.messageId, jobId: null, messageId: null, recipientIdx: claims.recipientIndex }
      : null;
  }
}
