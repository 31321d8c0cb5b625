// Response shape of GET /user/organization: the caller's organization and credential.
import { ApiProperty } from '@nestjs/swagger';
import { PLANS, SUBSCRIPTION_STATUSES } from '@app/domain';
import type { AuthContext, Organization, Scope } from '@app/domain';
import { CREDENTIAL_TYPES } from './credential.response';
import { SCOPE } from '../http/openapi-enums';

/** The type and scopes of the credential used. */
export class OrganizationCredentialResponse {
  @ApiProperty({ enum: CREDENTIAL_TYPES })
  type: AuthContext['principal']['type'];

  @ApiProperty({ ...SCOPE, isArray: true })
  scopes: Scope[];
}

export class OrganizationResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  name: string;

  @ApiProperty({ enum: PLANS })
  plan: string;

  @ApiProperty({ enum: SUBSCRIPTION_STATUSES })
  subscriptionStatus: string;

  /** Days the message log keeps a message. */
  messageRetentionDays: number;

  credential: OrganizationCredentialResponse;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: Date;

  @ApiProperty({ type: String, format: 'date-time' })
  updatedAt: Date;
}

export function toOrganizationResponse(org: Organization, auth: AuthContext): OrganizationResponse {
  return {
    id: org.id,
    name: org.name,
    plan: org.plan,
    subscriptionStatus: org.subscriptionStatus,
    messageRetentionDays: org.messageRetentionDays,
    credential: { type: auth.principal.type, scopes: [...auth.scopes] },
    createdAt: org.createdAt,
    updatedAt: org.updatedAt,
  };
}
