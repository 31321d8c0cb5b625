// The shapes of the webhook queue: a claimed delivery, an attempt's outcome to record, a resend.
import type { OrgId } from '../common/org-id';
import type { WebhookCustomHeader } from './webhook-endpoint.entity';
import type { WebhookDeliveryStatus } from './webhook-event-types';
import type { AttemptOutcome } from './webhook-retry-policy';

/** A delivery a worker holds the lease of, with what it needs to attempt it. */
export interface ClaimedDelivery {
  id: string;
  organizationId: OrgId;
  type: string;
  /** The exact request body. */
  body: string;
  attemptCount: number;
  leaseId: string;
  endpoint: {
    id: string;
    url: string;
    secret: string;
    customHeaders: WebhookCustomHeader[];
    timeoutSeconds: number;
    maxRetries: number;
    isActive: boolean;
  };
}

/** One attempt made, with the outcome to record. */
export interface FinishedAttempt {
  claimed: ClaimedDelivery;
  outcome: AttemptOutcome;
  startedAt: Date;
  durationMs: number;
}

/** A delivery as a resend finds it, locked. */
export interface ResendState {
  status: WebhookDeliveryStatus;
  attemptCount: number;
  maxRetries: number;
  errorMessage: string | null;
}

/** The endpoint of a claimed delivery, as the attempt uses it. */
export type ClaimedEndpoint = ClaimedDelivery['endpoint'];
