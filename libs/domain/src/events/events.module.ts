// The event path (events.service.ts): imported by every area that raises events.
import { Module } from '@nestjs/common';
import { EventRepository } from './event.repository';
import { Events } from './events.service';

@Module({
  providers: [EventRepository, Events],
  exports: [Events],
})
export class EventsModule {}
