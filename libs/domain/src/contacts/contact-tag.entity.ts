// Tags, their assignments to contacts and to lists.
import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { OrgId } from '../common/org-id';

/** A tag; names are unique per organization, case-insensitively. */
@Entity('contact_tags')
export class ContactTag {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid') organizationId: OrgId;
  @Column('text') name: string;
  /** Contacts carrying the tag, kept exact by a trigger on contact_tag_assignments. */
  @Column({ type: 'int', insert: false, update: false }) contactCount: number;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

@Entity('contact_tag_assignments')
export class ContactTagAssignment {
  @PrimaryColumn('uuid') contactId: string;
  @PrimaryColumn('uuid') tagId: string;
  @Column('uuid') organizationId: OrgId;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}

@Entity('contact_list_tags')
export class ContactListTag {
  @PrimaryColumn('uuid') contactListId: string;
  @PrimaryColumn('uuid') tagId: string;
}
