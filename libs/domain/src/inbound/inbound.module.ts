// Inbound mail (§14): the intake the relay's inbound port commits to, and the processing the worker
// runs (bounces, complaints, mailto unsubscribes).
import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module';
import { EventsModule } from '../events/events.module';
import { ContactEmailStatusRepository } from '../messaging/contact-email-status.repository';
import { MessagingModule } from '../messaging/messaging.module';
import { UnsubscribeModule } from '../unsubscribe/unsubscribe.module';
import { BounceFeedback } from './bounce-feedback';
import { ComplaintFeedback } from './complaint-feedback';
import { InboundIntake } from './inbound-intake';
import { InboundMessageRepository } from './inbound-message.repository';
import { InboundService } from './inbound.service';
import { MessageFeedbackRepository } from './message-feedback.repository';
import { ReturnPath } from './return-path';

@Module({
  imports: [UnsubscribeModule, MessagingModule, ContactsModule, EventsModule],
  providers: [
    // The messaging area's bounce bookkeeping, as delivery uses it (stateless: a second instance).
    ContactEmailStatusRepository,
    InboundMessageRepository,
    MessageFeedbackRepository,
    ReturnPath,
    InboundIntake,
    BounceFeedback,
    ComplaintFeedback,
    InboundService,
  ],
  exports: [InboundIntake, InboundService, ReturnPath],
})
export class InboundModule {}
