// Contact segments (§6): static membership, dynamic rules compiled to SQL, and their contacts.
import { Module } from '@nestjs/common';
import { Clock, SystemClock } from '../common/clock';
import { ContactsModule } from '../contacts/contacts.module';
import { SegmentRepository } from './segment.repository';
import { SegmentsService } from './segments.service';

@Module({
  imports: [ContactsModule],
  providers: [{ provide: Clock, useClass: SystemClock }, SegmentRepository, SegmentsService],
  exports: [SegmentsService],
})
export class SegmentsModule {}
