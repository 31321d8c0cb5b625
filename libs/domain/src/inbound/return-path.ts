// What inbound mail needs to know of the envelope senders the platform sends with (§13, §14):
// which hosts are our return hosts, and which message a bounce is about: by the VERP token of its
// envelope sender (`bounces+<token>@<return host>`), else by the original Message-ID, which the
// send path makes `<ULID@domain>` from the job id `job_<ULID>`.
import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';

/** The message (and, when known, the recipient) a bounce or complaint is about. */
export interface BounceReference {
  jobId: string;
  /** The original Message-ID the match came from; the message must carry exactly this one. */
  messageId: string | null;
  recipientIdx: number | null;
}

const MESSAGE_ID = /^<([0-7][0-9A-HJKMNP-TV-Z]{25})@[^<>@\s]+>$/i;

/** The job a Message-ID of ours names; null for any other Message-ID. */
export function messageIdReference(messageId: string): BounceReference | null {
  const m = MESSAGE_ID.exec(messageId.trim());
  if (!m) return null;
  return { jobId: `job_${m[1].toUpperCase()}`, messageId: messageId.trim(), recipientIdx: null };
}

@Injectable()
export class ReturnPath {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /**
   * Whether mail to this host is ours: BOUNCE_DOMAIN. The verified return hosts of sending
   * domains (`bounces.<domain>`) are ours too once that area answers here.
   */
  async isReturnHost(host: string): Promise<boolean> {
    return host === this.config.sendingDomains.bounceDomain;
  }

  /** matchBounce: the message a VERP token names, else the one a Message-ID names. */
  matchBounce(ref: {
    verpToken?: string | null;
    messageId?: string | null;
  }): BounceReference | null {
    const byToken = ref.verpToken ? this.verpReference(ref.verpToken) : null;
    return byToken ?? (ref.messageId ? messageIdReference(ref.messageId) : null);
  }

  /**
   * The message and recipient a VERP token names. The sending-domains area issues the tokens with
   * the envelope sender and decodes them here; until then no token names a message, and bounces
   * are matched by their Message-ID.
   */
  private verpReference(token: string): BounceReference | null {
    void token;
    return null;
  }
}
