// Bodies and response models of the sending-domain routes (§13).
import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString, MaxLength } from 'class-validator';
import { DNS_RECORD_PURPOSES, SENDING_DOMAIN_STATUSES } from '@app/domain';
import type { DnsRecordView, SendingDomainView } from '@app/domain';

export class CreateSendingDomainDto {
  /** The domain mail is sent From (its subdomains are covered too), e.g. `example.com`. */
  @IsDefined()
  @IsString()
  @MaxLength(253)
  name: string;
}

/** One DNS record to publish, with what its last check found. */
export class DnsRecordDto {
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
  lastCheckedAt: string | null;
}

export class SendingDomainDto {
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

  @ApiProperty({ type: [DnsRecordDto] })
  dnsRecords: DnsRecordDto[];

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  verifiedAt: string | null;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: string;

  @ApiProperty({ type: String, format: 'date-time' })
  updatedAt: string;
}

function toRecord(r: DnsRecordView) {
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

/** The SendingDomain of §13 (never its private key). */
export function toSendingDomainResponse(v: SendingDomainView) {
  const d = v.domain;
  return {
    id: d.id,
    organizationId: d.organizationId,
    name: d.name,
    status: d.status,
    dkimSelector: d.dkimSelector,
    dnsRecords: v.dnsRecords.map(toRecord),
    verifiedAt: d.verifiedAt,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}
