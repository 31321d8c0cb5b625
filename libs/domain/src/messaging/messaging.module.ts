// Email sending (§8): the send API's service, the message log, delivery over SMTP, tracking,
// engagement events, the email.* webhook events and the maintenance of the log. Used by the api,
// the worker and the relay.
import { Module } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { DnsModule } from '../dns/dns.module';
import { EventsModule } from '../events/events.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { ContactEmailStatusRepository } from './contact-email-status.repository';
import { DeliveryService } from './delivery.service';
import { EmailDispatcher } from './email-dispatcher';
import { EngagementStore } from './engagement/engagement.store';
import { MessageLogRepository } from './message-log.repository';
import { MessageLogService } from './message-log.service';
import { MessageMaintenanceService } from './message-maintenance.service';
import { MessageRepository } from './message.repository';
import { MessageService } from './message.service';
import { SendService } from './send.service';
import { SmtpOutbound } from './smtp-outbound';
import { TrackingTokens } from './tracking/tracking-token';
import { TrackingService } from './tracking/tracking.service';

@Module({
  imports: [TenancyModule, EventsModule, DnsModule],
  providers: [
    SendService,
    MessageRepository,
    MessageLogRepository,
    MessageService,
    ContactEmailStatusRepository,
    EmailDispatcher,
    DeliveryService,
    SmtpOutbound,
    EngagementStore,
    TrackingService,
    {
      provide: TrackingTokens,
      inject: [APP_CONFIG],
      useFactory: (c: AppConfig) => new TrackingTokens([c.encryptionKey, ...c.encryptionKeysOld]),
    },
    MessageLogService,
    MessageMaintenanceService,
  ],
  exports: [
    SendService,
    DeliveryService,
    MessageLogService,
    MessageMaintenanceService,
    TrackingService,
    EngagementStore,
    SmtpOutbound,
  ],
})
export class MessagingModule {}
