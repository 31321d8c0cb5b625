// SENDING_DOMAIN_POLICY (§13): with `require`, a From address whose domain is neither a verified
// domain of the organization nor under one is refused by the send API, campaign send and relay.
// With `allow` anything is accepted (and what is not under a verified domain goes out unsigned).
import { Inject, Injectable } from '@nestjs/common';
import type { OrgId } from '../common/org-id';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ConflictError } from '../errors/domain-errors';
import { addressDomain } from './domain-name';
import { VerifiedDomains } from './verified-domains';

/** 409 E_BUSINESS_RULE_VIOLATION on HTTP; `550 5.7.1` on the relay. */
export class SenderNotVerifiedError extends ConflictError {
  constructor(readonly domain: string) {
    super(`Sender domain is not verified: ${domain}`);
  }
}

@Injectable()
export class SenderPolicy {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly domains: VerifiedDomains,
  ) {}

  /** Throws SenderNotVerifiedError when the policy refuses `fromEmail` for the organization. */
  async assertMaySend(organizationId: OrgId, fromEmail: string): Promise<void> {
    if (this.config.sendingDomains.policy === 'allow') return;
    const domain = addressDomain(fromEmail);
    if (domain && (await this.domains.match(organizationId, domain))) return;
    throw new SenderNotVerifiedError(
      domain ?? fromEmail.slice(fromEmail.lastIndexOf('@') + 1).toLowerCase(),
    );
  }
}
