// Campaigns (drafts, sending, their recipients), the fan-out the worker runs, and the conversions
// attributed to them (§11).
import { Module } from '@nestjs/common';
import { MessagingModule } from '../messaging/messaging.module';
import { SegmentsModule } from '../segments/segments.module';
import { EventsModule } from '../events/events.module';
import { SendingDomainsModule } from '../sending-domains/sending-domains.module';
import { CampaignAudience } from './campaign-audience';
import { CampaignFanoutService } from './campaign-fanout.service';
import { CampaignService } from './campaign.service';
import { ConversionService } from './conversion.service';

@Module({
  imports: [SegmentsModule, MessagingModule, EventsModule, SendingDomainsModule],
  providers: [CampaignService, CampaignAudience, ConversionService, CampaignFanoutService],
  exports: [CampaignService, CampaignAudience, ConversionService, CampaignFanoutService],
})
export class CampaignsModule {}
