// Organizations, API keys, users, logins, access tokens and credential resolution.
import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module';
import { ApiKeyRepository } from './api-key.repository';
import { ApiKeyService } from './api-key.service';
import { CredentialService } from './credential.service';
import { LoginIpRepository } from './login-ip.repository';
import { LoginService } from './login.service';
import { MembershipRepository } from './membership.repository';
import { OrganizationCache } from './organization-cache';
import { OrganizationRepository } from './organization.repository';
import { OrganizationService } from './organization.service';
import { UserRepository } from './user.repository';
import { UserService } from './user.service';

@Module({
  imports: [ContactsModule],
  providers: [
    OrganizationRepository,
    ApiKeyRepository,
    UserRepository,
    MembershipRepository,
    LoginIpRepository,
    OrganizationService,
    ApiKeyService,
    UserService,
    LoginService,
    CredentialService,
    OrganizationCache,
  ],
  exports: [
    OrganizationService,
    OrganizationCache,
    ApiKeyService,
    UserService,
    LoginService,
    CredentialService,
  ],
})
export class TenancyModule {}
