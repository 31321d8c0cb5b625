// Campaigns on every channel, their fan-out and the conversions attributed to them (§11, §17).
import { Module } from '@nestjs/common';
import { MessagingModule } from '../messaging/messaging.module';
import { SegmentsModule } from '../segments/segments.module';
import { EventsModule } from '../events/events.module';
import { SendingDomainsModule } from '../sending-domains/sending-domains.module';
import { CampaignAudience } from './campaign-audience';
import { CampaignAudienceRepository } from './campaign-audience.repository';
import { CampaignFanoutService } from './campaign-fanout.service';
import { CampaignRepository } from './campaign.repository';
import { CampaignService } from './campaign.service';
import { CampaignSweeper } from './campaign.sweeper';
import { ConversionRepository } from './conversion.repository';
import { ConversionService } from './conversion.service';

@Module({
  imports: [SegmentsModule, MessagingModule, EventsModule, SendingDomainsModule],
  providers: [
    CampaignRepository,
    CampaignSweeper,
    CampaignAudienceRepository,
    ConversionRepository,
    CampaignService,
    CampaignAudience,
    ConversionService,
    CampaignFanoutService,
  ],
  exports: [CampaignService, CampaignAudience, ConversionService, CampaignFanoutService],
})
export class CampaignsModule {}
