// The SMTP transport over libs/domain: credentials, limits and the send path are the API's own.
import { Module } from '@nestjs/common';
import {
  AppConfigModule,
  DatabaseModule,
  LimitsModule,
  MessagingModule,
  OrganizationCache,
  QueuesModule,
  RedisModule,
  TenancyModule,
} from '@app/domain';
import { SmtpRelayService } from './smtp-relay.service';

@Module({
  imports: [
    AppConfigModule,
    DatabaseModule.forRoot({ migrate: false }),
    RedisModule,
    QueuesModule,
    LimitsModule,
    TenancyModule,
    MessagingModule,
  ],
  providers: [OrganizationCache, SmtpRelayService],
})
export class SmtpRelayModule {}
