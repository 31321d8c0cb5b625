// Organizations, API keys, users, logins, access tokens and credential resolution.
import { Module } from '@nestjs/common';
import { ApiKeyService } from './api-key.service';
import { CredentialService } from './credential.service';
import { LoginService } from './login.service';
import { OrganizationService } from './organization.service';
import { UserService } from './user.service';

@Module({
  providers: [OrganizationService, ApiKeyService, UserService, LoginService, CredentialService],
  exports: [OrganizationService, ApiKeyService, UserService, LoginService, CredentialService],
})
export class TenancyModule {}
