// A contact of an organization, and the display name rule.
import type { ValueTransformer } from 'typeorm';
import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

import { encryptedColumn } from '../crypto/field-encryption';
import type { OrgId } from '../common/org-id';

const ENCRYPTED_VALUE = /^v1:[0-9a-f]{8}:[A-Za-z0-9+/]+=*$/;

/**
 * displayName falls back to the first email address (§5), but no plaintext address may reach a
 * table: a display name that carries an address (or could be mistaken for a stored ciphertext) is
 * stored through `encryptedColumn`, every other one in the clear so name search and sort work.
 */
export const displayNameColumn: ValueTransformer = {
  to: (value: string | null | undefined) =>
    typeof value === 'string' && (value.includes('@') || ENCRYPTED_VALUE.test(value))
      ? (encryptedColumn.to(value) as string)
      : value,
  from: (value: string | null) =>
    value !== null && ENCRYPTED_VALUE.test(value) ? (encryptedColumn.from(value) as string) : value,
};

/** SQL test for a display name stored encrypted (key rotation). */
export const ENCRYPTED_DISPLAY_NAME_SQL = `display_name ~ '^v1:[0-9a-f]{8}:'`;

export const CONTACT_STATUSES = ['active', 'inactive', 'archived'] as const;
export type ContactStatus = (typeof CONTACT_STATUSES)[number];

/** A contact of an organization. */
@Entity('contacts')
export class Contact {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid') organizationId: OrgId;
  @Column('text', { nullable: true }) firstName: string | null;
  @Column('text', { nullable: true }) lastName: string | null;
  @Column('text', { nullable: true, transformer: displayNameColumn }) displayName: string | null;
  @Column('text', { nullable: true }) timezone: string | null;
  @Column('text', { nullable: true }) language: string | null;
  @Column('text', { nullable: true }) status: ContactStatus | null;
  @Column('jsonb', { nullable: true }) customFields: Record<string, unknown> | null;
  @Column('text', { nullable: true }) notes: string | null;
  @Column('timestamptz', { nullable: true }) lastActivityAt: Date | null;
  /**
   * One bit per channel the contact has records on (CHANNEL_INFO[channel].bit), maintained by
   * database triggers: read-only here, so no save can write a stale value.
   */
  @Column({ type: 'smallint', insert: false, update: false }) channelMask: number;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

/** displayName on create (§5): `firstName lastName` trimmed, else the first email, else a literal. */
export function deriveDisplayName(
  firstName: string | null | undefined,
  lastName: string | null | undefined,
  firstEmail: string | null | undefined,
): string {
  const name = [firstName, lastName]
    .map((s) => (s ?? '').trim())
    .filter(Boolean)
    .join(' ');
  if (name) return name;
  const email = (firstEmail ?? '').trim();
  return email || 'Unnamed Contact';
}
