// Response shape of POST /auth/login.
import { ApiProperty } from '@nestjs/swagger';

/** A 24-hour access token (`at_...`), sent as `Authorization: Bearer`. */
export class LoginResponse {
  accessToken: string;

  @ApiProperty({ type: String, format: 'date-time' })
  expiresAt: Date;
}

export function toLoginResponse(t: { accessToken: string; expiresAt: Date }): LoginResponse {
  return { accessToken: t.accessToken, expiresAt: t.expiresAt };
}
