// Response shape of GET /user/me: the credential of the request.
import { ApiProperty } from '@nestjs/swagger';
import type { AuthContext, Scope } from '@app/domain';
import { SCOPE } from '../http/openapi-enums';

export const CREDENTIAL_TYPES = ['api_key', 'user'] as const;

/** The credential itself: its organization, type and scopes. */
export class CredentialResponse {
  @ApiProperty({ format: 'uuid' })
  organizationId: string;

  /** `api_key` for a `bk_` key, `user` for an access token. */
  @ApiProperty({ enum: CREDENTIAL_TYPES })
  type: AuthContext['principal']['type'];

  /** The API key's id (null for an access token). */
  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  keyId: string | null;

  /** The signed-in user's id (null for an API key). */
  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  userId: string | null;

  @ApiProperty({ ...SCOPE, isArray: true })
  scopes: Scope[];
}

export function toCredentialResponse(auth: AuthContext): CredentialResponse {
  return {
    organizationId: auth.organizationId,
    type: auth.principal.type,
    keyId: auth.principal.type === 'api_key' ? auth.principal.keyId : null,
    userId: auth.principal.type === 'user' ? auth.principal.userId : null,
    scopes: [...auth.scopes],
  };
}
