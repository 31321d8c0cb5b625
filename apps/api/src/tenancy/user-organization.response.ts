// Response shape of GET /auth/organizations.
import { ApiProperty } from '@nestjs/swagger';
import { PLANS, ROLES } from '@app/domain';
import type { Role, UserOrganization } from '@app/domain';

/** One organization the signed-in user belongs to. */
export class UserOrganizationResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  name: string;

  @ApiProperty({ enum: PLANS })
  plan: string;

  /** The user's role in this organization. */
  @ApiProperty({ enum: ROLES })
  role: Role;
}

export function toUserOrganizationResponse(o: UserOrganization): UserOrganizationResponse {
  return { id: o.id, name: o.name, plan: o.plan, role: o.role };
}
