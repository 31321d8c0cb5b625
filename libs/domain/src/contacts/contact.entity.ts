import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

export const CONTACT_STATUSES = ['active', 'inactive', 'archived'] as const;
export type ContactStatus = (typeof CONTACT_STATUSES)[number];

/**
 * A contact of an organization. `contacts.channel_mask` (which channels it has records on) is
 * maintained by database triggers and deliberately not mapped, so no save can write a stale value.
 */
@Entity('contacts')
export class Contact {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid') organizationId: string;
  @Column('text', { nullable: true }) firstName: string | null;
  @Column('text', { nullable: true }) lastName: string | null;
  @Column('text', { nullable: true }) displayName: string | null;
  @Column('text', { nullable: true }) timezone: string | null;
  @Column('text', { nullable: true }) language: string | null;
  @Column('text', { nullable: true }) status: ContactStatus | null;
  @Column('jsonb', { nullable: true }) customFields: Record<string, unknown> | null;
  @Column('text', { nullable: true }) notes: string | null;
  @Column('timestamptz', { nullable: true }) lastActivityAt: Date | null;
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
