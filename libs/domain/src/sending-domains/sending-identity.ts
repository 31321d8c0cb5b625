// What a message goes out as (§13), decided in the worker just before the SMTP hand-off: the DKIM
// signature when its From domain is, or is under, a verified domain of its organization (the
// signing itself is nodemailer's, in the SMTP thread), and each recipient's VERP envelope sender.
import { Inject, Injectable } from '@nestjs/common';
import type { OrgId } from '../common/org-id';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { addressDomain } from './domain-name';
import { VerifiedDomains } from './verified-domains';
import { VerpTokens } from './verp';

/**
 * Signed when present (relaxed/relaxed is nodemailer's canonicalisation, rsa-sha256 its default
 * algorithm); headers a message does not carry are left out of `h=`.
 */
export const DKIM_SIGNED_HEADERS = [
  'From',
  'To',
  'Cc',
  'Subject',
  'Date',
  'Message-ID',
  'MIME-Version',
  'Content-Type',
  'Reply-To',
  'List-Unsubscribe',
  'List-Unsubscribe-Post',
].join(':');

/**
 * nodemailer's DKIM option for one key. Its types say a PEM string, but it hands the key to
 * crypto's `Sign#sign`, which takes the KeyObject given here (see VerifiedDomain.privateKey).
 */
export interface DkimSigning {
  domainName: string;
  keySelector: string;
  privateKey: string;
  headerFieldNames: string;
}

export interface SendingIdentity {
  /** Set when the message is to be signed. */
  dkim?: DkimSigning;
  /** `bounces+<token>@<return host>` of one recipient (its index in the message). */
  envelopeFrom(recipientIndex: number): string;
}

@Injectable()
export class SendingIdentities {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly domains: VerifiedDomains,
    private readonly verp: VerpTokens,
  ) {}

  /**
   * The identity of a message (`messageId`: its row id) sent From `fromEmail`. The return host is
   * `bounces.<domain>` once that record is verified, else the platform's BOUNCE_DOMAIN.
   */
  async forMessage(
    organizationId: OrgId,
    messageId: string,
    fromEmail: string,
  ): Promise<SendingIdentity> {
    const fromDomain = addressDomain(fromEmail);
    const domain = fromDomain ? await this.domains.match(organizationId, fromDomain) : null;
    const returnHost = domain?.returnPathVerified
      ? `bounces.${domain.name}`
      : this.config.sendingDomains.bounceDomain;
    return {
      dkim: domain
        ? {
            domainName: domain.name,
            keySelector: domain.selector,
            privateKey: domain.privateKey() as unknown as string,
            headerFieldNames: DKIM_SIGNED_HEADERS,
          }
        : undefined,
      envelopeFrom: (recipientIndex) =>
        this.verp.address({ messageId, recipientIndex }, returnHost),
    };
  }
}
