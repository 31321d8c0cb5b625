// The SMTP transport over libs/domain: credentials, limits and the send path are the API's own;
// the inbound port for bounces and complaints (inbound/) commits to the inbound work list.
import { Module } from '@nestjs/common';
import {
  AppConfigModule,
  DatabaseModule,
  InboundModule,
  LimitsModule,
  MessagingModule,
  QueuesModule,
  RedisModule,
  TenancyModule,
} from '@app/domain';
import { InboundSmtpService } from './inbound/inbound-smtp.service';
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
    InboundModule,
  ],
  providers: [SmtpRelayService, InboundSmtpService],
})
export class SmtpRelayModule {}
