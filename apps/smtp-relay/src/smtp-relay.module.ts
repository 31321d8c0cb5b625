import { Module } from '@nestjs/common';
import {
  AppConfigModule,
  DatabaseModule,
  LimitsModule,
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
  ],
  providers: [SmtpRelayService],
})
export class SmtpRelayModule {}
