// Unsubscribing (§14): the service behind the one-click endpoint, the mailto address and complaints.
import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module';
import { EventsModule } from '../events/events.module';
import { MessagingModule } from '../messaging/messaging.module';
import { UnsubscribeLinksModule } from './unsubscribe-links.module';
import { UnsubscribeRepository } from './unsubscribe.repository';
import { UnsubscribeService } from './unsubscribe.service';

@Module({
  imports: [UnsubscribeLinksModule, MessagingModule, ContactsModule, EventsModule],
  providers: [UnsubscribeRepository, UnsubscribeService],
  exports: [UnsubscribeService, UnsubscribeLinksModule],
})
export class UnsubscribeModule {}
