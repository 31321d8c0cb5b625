// Response shape of POST /send/{sms,whatsapp,telegram,imessage,push} (§17).
import { ApiProperty } from '@nestjs/swagger';
import { PROVIDER_CHANNELS } from '@app/domain';
import type { ChannelSendResult } from '@app/domain';

export class ChannelSendResponse {
  /** `job_` and a ULID: the message in GET /messages/{jobId}. */
  jobId: string;

  @ApiProperty({ enum: PROVIDER_CHANNELS })
  channel: string;

  @ApiProperty({ enum: ['queued'] })
  status: 'queued';
}

/** Kept as the Idempotency-Key's stored answer too, so a repeat answers these very fields. */
export function toChannelSendResponse(r: ChannelSendResult): ChannelSendResponse {
  return { jobId: r.jobId, channel: r.channel, status: r.status };
}
