// Sending domains (§13): the domains, their DNS checks, the cache of verified ones, the sender
// policy, and what an outgoing message is signed and enveloped with. Used by the api, the
// worker and the relay.
import { Module } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { DnsModule } from '../dns/dns.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { DkimKeyGenerator } from './dkim-key';
import { SenderPolicy } from './sender-policy';
import { SendingDomainRepository } from './sending-domain.repository';
import { SendingDomainService } from './sending-domain.service';
import { SendingDomainSweeper } from './sending-domain.sweeper';
import { SendingIdentities } from './sending-identity';
import { VerifiedDomains } from './verified-domains';
import { VerpTokens } from './verp';

@Module({
  imports: [DnsModule, TenancyModule],
  providers: [
    { provide: DkimKeyGenerator, useFactory: () => new DkimKeyGenerator() },
    SendingDomainRepository,
    SendingDomainSweeper,
    SendingDomainService,
    VerifiedDomains,
    SenderPolicy,
    SendingIdentities,
    {
      provide: VerpTokens,
      inject: [APP_CONFIG],
      useFactory: (c: AppConfig) => new VerpTokens([c.encryptionKey, ...c.encryptionKeysOld]),
    },
  ],
  exports: [SendingDomainService, SenderPolicy, SendingIdentities, VerpTokens],
})
export class SendingDomainsModule {}
