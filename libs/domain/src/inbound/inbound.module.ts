// Inbound mail (§14): the intake the relay's inbound port commits to, and the processing the worker
// runs (bounces, complaints, mailto unsubscribes).
import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module';
import { EventsModule } from '../events/events.module';
import { MessagingModule } from '../messaging/messaging.module';
import { SendingDomainsModule } from '../sending-domains/sending-domains.module';
import { UnsubscribeModule } from '../unsubscribe/unsubscribe.module';
import { BounceFeedback } from './bounce-feedback';
import { ComplaintFeedback } from './complaint-feedback';
import { InboundIntake } from './inbound-intake';
import { InboundMessageRepository } from './inbound-message.repository';
import { InboundMessageSweeper } from './inbound-message.sweeper';
import { InboundService } from './inbound.service';
import { ReturnPath } from './return-path';

@Module({
  imports: [UnsubscribeModule, MessagingModule, SendingDomainsModule, ContactsModule, EventsModule],
  providers: [
    InboundMessageRepository,
    InboundMessageSweeper,
    ReturnPath,
    InboundIntake,
    BounceFeedback,
    ComplaintFeedback,
    InboundService,
  ],
  exports: [InboundIntake, InboundService, ReturnPath],
})
export class InboundModule {}
