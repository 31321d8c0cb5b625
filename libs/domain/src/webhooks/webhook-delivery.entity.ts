// A webhook delivery (one event to one endpoint) and the request body it sends on every attempt.
import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { encryptedColumn } from '../crypto/field-encryption';
import type { WebhookDeliveryStatus } from './webhook-event-types';

/** The body sent to the customer's server, as an object (the API's `payload`). */
export interface WebhookEnvelope {
  delivery_id: string;
  type: string;
  timestamp: string;
  data: unknown;
}

/**
 * The request body of a delivery: `{"delivery_id","type","timestamp","data"}` in that order,
 * with `data` exactly as the producer serialised it. A function of stored columns only, so every
 * attempt (and a resend) sends the same bytes.
 */
export function envelopeJson(id: string, type: string, occurredAt: Date, dataJson: string): string {
  return (
    `{"delivery_id":${JSON.stringify(id)},"type":${JSON.stringify(type)},` +
    `"timestamp":${JSON.stringify(occurredAt.toISOString())},"data":${dataJson}}`
  );
}

@Entity('webhook_deliveries')
export class WebhookDelivery {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') organizationId: OrgId;
  @Column('uuid') webhookEndpointId: string;
  @Column('text') type: string;
  /** The event's data as JSON text, encrypted at rest. */
  @Column('text', { transformer: encryptedColumn }) data: string;
  /** When the event occurred: the envelope's `timestamp`. */
  @Column('timestamptz') occurredAt: Date;
  @Column('text') status: WebhookDeliveryStatus;
  @Column('int') attemptCount: number;
  @Column('int', { nullable: true }) httpStatusCode: number | null;
  @Column('text', { nullable: true }) errorMessage: string | null;
  @Column('text', { nullable: true }) responseBody: string | null;
  @Column('timestamptz', { nullable: true }) nextRetryAt: Date | null;
  @Column('timestamptz', { nullable: true }) deliveredAt: Date | null;
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz') updatedAt: Date;
}
