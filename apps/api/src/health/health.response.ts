// Response shapes of the health probes (built by the controller: there is no domain object).
import { ApiProperty } from '@nestjs/swagger';

export type ProbeStatus = 'up' | 'down';

/** The process answers. */
export class LivenessResponse {
  @ApiProperty({ enum: ['ok'] })
  status: 'ok';
}

/** Database and Redis as the probe found them: `degraded` (and 503) when either is down. */
export class HealthResponse {
  @ApiProperty({ enum: ['ok', 'degraded'] })
  status: 'ok' | 'degraded';

  @ApiProperty({ enum: ['up', 'down'] })
  database: ProbeStatus;

  @ApiProperty({ enum: ['up', 'down'] })
  redis: ProbeStatus;
}
