// The contacts area (§5): contacts, channel records, tags, lists, memberships; encrypted at rest.
import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { BlindIndexSubscriber } from './blind-index.subscriber';
import { ChannelFeedbackRepository } from './channel-feedback.repository';
import { ChannelFeedbackService } from './channel-feedback.service';
import { ContactChannelsRepository } from './contact-channels.repository';
import { ContactChannelsService } from './contact-channels.service';
import { ContactEmailService } from './contact-email.service';
import { ContactEvents } from './contact.events';
import { ContactListsRepository } from './contact-lists.repository';
import { ContactListsService } from './contact-lists.service';
import { ContactTagsRepository } from './contact-tags.repository';
import { ContactTagsService } from './contact-tags.service';
import { ContactPageRepository } from './contact-page.repository';
import { ContactViewsRepository } from './contact-views.repository';
import { ContactsBulkService } from './contacts-bulk.service';
import { ContactsRepository } from './contacts.repository';
import { ContactsService } from './contacts.service';
import { KeyRotationSweeper } from './key-rotation.sweeper';

const PROVIDERS = [
  ContactsRepository,
  ContactViewsRepository,
  ContactPageRepository,
  ContactChannelsRepository,
  ContactTagsRepository,
  ContactListsRepository,
  ContactsService,
  ContactsBulkService,
  ContactChannelsService,
  ContactTagsService,
  ContactListsService,
  ContactEmailService,
  ContactEvents,
  ChannelFeedbackRepository,
  ChannelFeedbackService,
  KeyRotationSweeper,
];

@Module({
  imports: [EventsModule],
  providers: [BlindIndexSubscriber, ...PROVIDERS],
  exports: PROVIDERS,
})
export class ContactsModule {}
