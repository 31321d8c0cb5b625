// Response shapes of the sending-domain routes (§13): a domain and its DNS records (never its
// private key).
import { ApiProperty } from '@nestjs/swagger';
import { DNS_RECORD_PURPOSES, SENDING_DOMAIN_STATUSES } from '@app/domain';
import type { DnsRecordView, SendingDomainView } from '@app/domain';

/** One DNS record to publish, with what its last check found. */
export class DnsRecordResponse {
  @ApiProperty({ enum: DNS_RECORD_PURPOSES })
  purpose: string;

  @ApiProperty({ enum: ['TXT', 'CNAME'] })
  type: string;

  /** Fully qualified name of the record. */
  name: string;

  /** TXT content or CNAME target. */
  value: string;

  /** The domain is verified once every required record matches; the others are reported. */
  required: boolean;

  @ApiProperty({ enum: SENDING_DOMAIN_STATUSES })
  status: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  lastCheckedAt: Date | null;
}

/** The SendingDomain of §13. */
export class SendingDomainResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  organizationId: string;

  /** Lower-case ASCII (IDNA) name. */
  name: string;

  @ApiProperty({ enum: SENDING_DOMAIN_STATUSES })
  status: string;

  /** Selector of the DKIM key (`s=` of the signatures). */
  dkimSelector: string;

  @ApiProperty({ type: [DnsRecordResponse] })
  dnsRecords: DnsRecordResponse[];

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  verifiedAt: Date | null;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: Date;

  @ApiProperty({ type: String, format: 'date-time' })
  updatedAt: Date;
}

export function toDnsRecordResponse(r: DnsRecordView): DnsRecordResponse {
  return {
    purpose: r.purpose,
    type: r.type,
    name: r.name,
    value: r.value,
    required: r.required,
    status: r.status,
    lastCheckedAt: r.lastCheckedAt,
  };
}

export function toSendingDomainResponse(v: SendingDomainView): SendingDomainResponse {
  const d = v.domain;
  return {
    id: d.id,
    organizationId: d.organizationId,
    name: d.name,
    status: d.status,
    dkimSelector: d.dkimSelector,
    dnsRecords: v.dnsRecords.map(toDnsRecordResponse),
    verifiedAt: d.verifiedAt,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}
