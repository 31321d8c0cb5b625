// One attempt of a webhook delivery: its HTTP status or error, response prefix and timing.
import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { OrgId } from '../common/org-id';

@Entity('webhook_attempts')
export class WebhookAttempt {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid') organizationId: OrgId;
  @Column('uuid') webhookDeliveryId: string;
  @Column('int') attemptNumber: number;
  @Column('int', { nullable: true }) httpStatusCode: number | null;
  @Column('text', { nullable: true }) errorMessage: string | null;
  /** First 4 KB of the response body. */
  @Column('text', { nullable: true }) responseBody: string | null;
  @Column('int') durationMs: number;
  @Column('timestamptz') startedAt: Date;
  @Column('timestamptz') createdAt: Date;
}
