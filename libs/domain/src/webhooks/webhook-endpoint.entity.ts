// A webhook endpoint: its URL, subscribed event types, limits, custom headers and secret.
import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { OrgId } from '../common/org-id';
import { encryptedColumn } from '../crypto/field-encryption';

export interface WebhookCustomHeader {
  key: string;
  value: string;
}

/** Custom headers are stored encrypted as one JSON array: they often carry credentials. */
export const customHeadersColumn = {
  to: (value: WebhookCustomHeader[] | undefined) =>
    value === undefined ? undefined : encryptedColumn.to(JSON.stringify(value)),
  from: (value: string | null): WebhookCustomHeader[] =>
    value === null ? [] : (JSON.parse(encryptedColumn.from(value)) as WebhookCustomHeader[]),
};

@Entity('webhook_endpoints')
export class WebhookEndpoint {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid') organizationId: OrgId;
  @Column('text') url: string;
  @Column('text', { nullable: true }) description: string | null;
  @Column('text', { array: true }) events: string[];
  @Column('boolean') isActive: boolean;
  /** Total attempts including the first (§10). */
  @Column('int') maxRetries: number;
  @Column('int') timeoutSeconds: number;
  @Column('text', { transformer: customHeadersColumn }) customHeaders: WebhookCustomHeader[];
  /** The raw secret, encrypted at rest: receivers verify with it, so it cannot be a hash. */
  @Column('text', { select: false, transformer: encryptedColumn }) secret: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
