// Channels beyond email (§17): the provider accounts of each organization, the registry of provider
// adapters and the one HTTP client they reach their providers with. Used by the api and the worker.
import { Module, Type } from '@nestjs/common';
import { Clock, SystemClock } from '../common/clock';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ContactsModule } from '../contacts/contacts.module';
import { DnsModule } from '../dns/dns.module';
import { ChannelProviderRepository } from './channel-provider.repository';
import { ChannelProviderService } from './channel-provider.service';
import type { ProviderAdapter } from './provider-adapter';
import { ProviderAccounts } from './provider-accounts';
import { ProviderHttp } from './provider-http';
import { ProviderThrottle } from './provider-throttle';
import { ApnsAdapter } from './providers/apns.adapter';
import { BlooioAdapter } from './providers/blooio.adapter';
import { FcmAdapter } from './providers/fcm.adapter';
import { HTTP_PROVIDER_ADAPTERS } from './providers/http.adapter';
import { TelegramBotAdapter } from './providers/telegram-bot.adapter';
import { TwilioAdapter } from './providers/twilio.adapter';
import { WhatsappCloudAdapter } from './providers/whatsapp-cloud.adapter';
import { PROVIDER_ADAPTERS, ProviderRegistry } from './provider-registry';
import { TelegramLinkTokens } from './telegram-link-token';
import { TelegramLinks } from './telegram-links.service';

/** Every provider adapter, each an injectable class; the registry serves them by channel and name. */
const ADAPTERS: Type<ProviderAdapter>[] = [
  TwilioAdapter,
  WhatsappCloudAdapter,
  TelegramBotAdapter,
  BlooioAdapter,
  FcmAdapter,
  ApnsAdapter,
  ...HTTP_PROVIDER_ADAPTERS,
];

@Module({
  imports: [DnsModule, ContactsModule],
  providers: [
    { provide: Clock, useClass: SystemClock },
    ProviderHttp,
    ...ADAPTERS,
    {
      provide: PROVIDER_ADAPTERS,
      inject: ADAPTERS,
      useFactory: (...adapters: ProviderAdapter[]) => adapters,
    },
    ProviderRegistry,
    ChannelProviderRepository,
    ChannelProviderService,
    ProviderAccounts,
    ProviderThrottle,
    TelegramLinks,
    {
      provide: TelegramLinkTokens,
      inject: [APP_CONFIG],
      useFactory: (c: AppConfig) =>
        new TelegramLinkTokens([c.encryptionKey, ...c.encryptionKeysOld]),
    },
  ],
  exports: [
    TelegramLinkTokens,
    TelegramLinks,
    ProviderHttp,
    ProviderRegistry,
    ChannelProviderService,
    ProviderAccounts,
    ProviderThrottle,
  ],
})
export class ChannelsModule {}
