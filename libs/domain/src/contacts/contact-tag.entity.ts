// Tags, and their links to lists (a contact's tags are its tag_ids).
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
  /**
   * Contacts carrying the tag: the sum of its contact_tag_counters, kept exact by triggers on
   * contacts (selected by ContactTagsRepository, not a column of the table).
   */
  @Column({ type: 'int', insert: false, update: false }) contactCount: number;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

@Entity('contact_list_tags')
export class ContactListTag {
  @PrimaryColumn('uuid') contactListId: string;
  @PrimaryColumn('uuid') tagId: string;
}
