// Response shape of POST /send (§8): the accepted email's ids; delivery happens in the worker.
import { ApiProperty } from '@nestjs/swagger';
import type { SendResult } from '@app/domain';

export class SendEmailResponse {
  /** `job_` and a ULID: the message in GET /messages/{jobId}. */
  jobId: string;

  /** The Message-ID header the email carries. */
  messageId: string;

  /** Every recipient (to, cc and bcc), once each. */
  recipients: string[];

  @ApiProperty({ enum: ['queued'] })
  status: 'queued';
}

/**
 * Kept as the Idempotency-Key's stored answer too, so a repeat answers these very fields. Plain
 * fields only: this is the hot path.
 */
export function toSendEmailResponse(r: SendResult): SendEmailResponse {
  return { jobId: r.jobId, messageId: r.messageId, recipients: r.recipients, status: r.status };
}
