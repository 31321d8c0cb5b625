import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { WebhookDeliveryStatus } from './webhook-event-types';

/** The body sent on every attempt of a delivery, byte for byte the same. */
export interface WebhookEnvelope {
  delivery_id: string;
  type: string;
  timestamp: string;
  data: unknown;
}

@Entity('webhook_deliveries')
export class WebhookDelivery {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') organizationId: string;
  @Column('uuid') webhookEndpointId: string;
  @Column('text') type: string;
  @Column('jsonb') payload: WebhookEnvelope;
  @Column('text') status: WebhookDeliveryStatus;
  @Column('int') attemptCount: number;
  @Column('int', { nullable: true }) httpStatusCode: number | null;
  @Column('text', { nullable: true }) errorMessage: string | null;
  @Column('text', { nullable: true }) responseBody: string | null;
  @Column('timestamptz', { nullable: true }) nextRetryAt: Date | null;
  @Column('timestamptz', { nullable: true }) deliveredAt: Date | null;
  /** Lease of the worker attempting it; internal. */
  @Column('timestamptz', { nullable: true, select: false }) lockedUntil: Date | null;
  @Column('uuid', { nullable: true, select: false }) lockedBy: string | null;
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz') updatedAt: Date;
}
