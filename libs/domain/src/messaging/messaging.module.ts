// Sending (§8, §17): the send APIs' services, the message log of every channel, delivery over SMTP
// and through provider accounts, provider callbacks, tracking, engagement events, the email.* and
// message.* webhook events and the maintenance of the log. Used by the api,
// the worker and the relay.
import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ContactsModule } from '../contacts/contacts.module';
import { DnsModule } from '../dns/dns.module';
import { EventsModule } from '../events/events.module';
import { SendingDomainsModule } from '../sending-domains/sending-domains.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { UnsubscribeLinksModule } from '../unsubscribe/unsubscribe-links.module';
import { ChannelAddresses } from './channel-addresses.repository';
import { ChannelCallbackService } from './channel-callback.service';
import { ChannelDeliveryService } from './channel-delivery.service';
import { ChannelSendService } from './channel-send.service';
import { ProviderStatusRepository } from './provider-status.repository';
import { DeliveryService } from './delivery.service';
import { EmailDispatcher } from './email-dispatcher';
import { EngagementDatabase } from './engagement/engagement-database';
import { EngagementService } from './engagement/engagement.service';
import { EngagementStore } from './engagement/engagement.store';
import { EngagementSweeper } from './engagement/engagement.sweeper';
import { MessageAttemptsRepository } from './message-attempts.repository';
import { MessageAttemptsService } from './message-attempts.service';
import { MessageLogRepository } from './message-log.repository';
import { MessageLogService } from './message-log.service';
import { MessageMaintenanceService } from './message-maintenance.service';
import { MessageRepository } from './message.repository';
import { MessageService } from './message.service';
import { MessageSweeper } from './message.sweeper';
import { SendService } from './send.service';
import { SmtpOutbound } from './smtp-outbound';
import { TrackingTokens } from './tracking/tracking-token';
import { ShortLinks } from './tracking/short-links';
import { TrackingService } from './tracking/tracking.service';

@Module({
  imports: [
    TenancyModule,
    EventsModule,
    DnsModule,
    SendingDomainsModule,
    UnsubscribeLinksModule,
    ChannelsModule,
    ContactsModule,
  ],
  providers: [
    SendService,
    ChannelSendService,
    ChannelAddresses,
    ChannelDeliveryService,
    ProviderStatusRepository,
    MessageAttemptsRepository,
    MessageAttemptsService,
    ChannelCallbackService,
    MessageRepository,
    MessageSweeper,
    MessageLogRepository,
    MessageService,
    EmailDispatcher,
    DeliveryService,
    SmtpOutbound,
    EngagementDatabase,
    EngagementStore,
    EngagementSweeper,
    EngagementService,
    TrackingService,
    ShortLinks,
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
    MessageAttemptsService,
    ChannelSendService,
    ChannelCallbackService,
    DeliveryService,
    MessageLogService,
    MessageMaintenanceService,
    TrackingService,
    EngagementService,
    SmtpOutbound,
  ],
})
export class MessagingModule {}
