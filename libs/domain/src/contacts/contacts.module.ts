// Contacts, their six channel records, tags, lists and memberships (§5), encrypted at rest.
import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { BlindIndexSubscriber } from './blind-index.subscriber';
import { ContactChannelsService } from './contact-channels.service';
import { ContactEmailService } from './contact-email.service';
import { ContactEvents } from './contact.events';
import { ContactListsService } from './contact-lists.service';
import { ContactTagsService } from './contact-tags.service';
import { ContactViewsRepository } from './contact-views.repository';
import { ContactsService } from './contacts.service';

const SERVICES = [
  ContactViewsRepository,
  ContactsService,
  ContactChannelsService,
  ContactTagsService,
  ContactListsService,
  ContactEmailService,
  ContactEvents,
];

@Module({
  imports: [EventsModule],
  providers: [BlindIndexSubscriber, ...SERVICES],
  exports: SERVICES,
})
export class ContactsModule {}
