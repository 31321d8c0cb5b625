// Entity of a conversion attributed to a campaign.
import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { OrgId } from '../common/org-id';

/** numeric comes back from pg as a string; money is exact in the database and a number in JSON. */
const money = {
  to: (v: number) => v,
  from: (v: string | null) => (v === null ? null : Number(v)),
};

@Entity('conversions')
export class Conversion {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid') organizationId: OrgId;
  @Column('uuid') campaignId: string;
  @Column('uuid', { nullable: true }) contactId: string | null;
  @Column('text') orderId: string;
  @Column('numeric', { precision: 14, scale: 2, transformer: money }) revenue: number;
  @Column('char', { length: 3 }) currency: string;
  @Column('text') channel: string;
  @Column('timestamptz') occurredAt: Date;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
