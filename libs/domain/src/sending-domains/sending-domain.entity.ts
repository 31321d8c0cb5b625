// The SendingDomain record (§13): a name an organization sends from, its DKIM key pair (the
// private key encrypted at rest, never returned), the outcome of each record's last check and the
// worker's check schedule.
import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { OrgId } from '../common/org-id';
import { encryptedColumn } from '../crypto/field-encryption';

export const SENDING_DOMAIN_STATUSES = ['pending', 'verified', 'failed'] as const;
export type SendingDomainStatus = (typeof SENDING_DOMAIN_STATUSES)[number];

export const DNS_RECORD_PURPOSES = ['dkim', 'return-path', 'spf', 'dmarc'] as const;
export type DnsRecordPurpose = (typeof DNS_RECORD_PURPOSES)[number];

/** What the last check of one record found. */
export interface RecordCheck {
  status: 'verified' | 'failed';
  /** ISO time of that check. */
  checkedAt: string;
}

export type RecordChecks = Partial<Record<DnsRecordPurpose, RecordCheck>>;

@Entity('sending_domains')
export class SendingDomain {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid') organizationId: OrgId;
  /** Lower-case ASCII (IDNA) name. */
  @Column('text') name: string;
  @Column('text') status: SendingDomainStatus;
  @Column('text') dkimSelector: string;
  /** Base64 SubjectPublicKeyInfo: the `p=` of the DKIM record. */
  @Column('text') dkimPublicKey: string;
  /** PKCS#8 PEM, encrypted at rest; read only by the signer. */
  @Column('text', { select: false, transformer: encryptedColumn }) dkimPrivateKey: string;
  @Column('jsonb') recordChecks: RecordChecks;
  @Column('timestamptz', { nullable: true }) verifiedAt: Date | null;
  @Column('timestamptz', { nullable: true }) lastCheckedAt: Date | null;
  /** When the worker checks the records next; null: no automatic check is due. */
  @Column('timestamptz', { nullable: true }) nextCheckAt: Date | null;
  /** End of the window in which a domain that is not verified is re-checked every 10 minutes. */
  @Column('timestamptz', { nullable: true }) checkUntil: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
