// Organizations, API keys, users, access tokens and credential resolution.
import { Module } from '@nestjs/common';
import { ApiKeyService } from './api-key.service';
import { CredentialService } from './credential.service';
import { OrganizationService } from './organization.service';
import { UserService } from './user.service';

@Module({
  providers: [OrganizationService, ApiKeyService, UserService, CredentialService],
  exports: [OrganizationService, ApiKeyService, UserService, CredentialService],
})
export class TenancyModule {}
