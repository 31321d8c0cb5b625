// Request and response shapes of the auth routes.
import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsString, MaxLength, MinLength } from 'class-validator';
import { PLANS, ROLES } from '@app/domain';
import type { Role } from '@app/domain';

export class LoginDto {
  @IsEmail()
  @MaxLength(320)
  email: string;

  @IsString()
  @MinLength(1)
  @MaxLength(1024)
  password: string;
}

/** One organization the signed-in user belongs to. */
export class UserOrganizationDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  name: string;

  @ApiProperty({ enum: PLANS })
  plan: string;

  /** The user's role in this organization. */
  @ApiProperty({ enum: ROLES })
  role: Role;
}
