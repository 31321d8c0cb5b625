// The unsubscribe token and the links built from it: what the delivery worker puts into a message
// and what the endpoint and the inbound mail verify. Depends on the configuration only.
import { Module } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { UnsubscribeLinks } from './unsubscribe-links';
import { UnsubscribeTokens } from './unsubscribe-token';

@Module({
  providers: [
    {
      provide: UnsubscribeTokens,
      inject: [APP_CONFIG],
      useFactory: (c: AppConfig) =>
        new UnsubscribeTokens([c.encryptionKey, ...c.encryptionKeysOld]),
    },
    UnsubscribeLinks,
  ],
  exports: [UnsubscribeTokens, UnsubscribeLinks],
})
export class UnsubscribeLinksModule {}
