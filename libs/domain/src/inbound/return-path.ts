// What inbound mail needs to know of the envelope senders the platform sends with (§13, §14):
// which hosts are our return hosts. Which message a report is about comes from the signed tokens
// only (feedback-rules.ts).
import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { SendingDomainService } from '../sending-domains/sending-domain.service';

@Injectable()
export class ReturnPath {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly domains: SendingDomainService,
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
}
