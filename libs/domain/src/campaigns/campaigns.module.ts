// Campaigns (drafts, sending, their recipients) and the conversions attributed to them (§11).
import { Module } from '@nestjs/common';
import { CampaignAudience } from './campaign-audience';
import { CampaignService } from './campaign.service';
import { ConversionService } from './conversion.service';

@Module({
  providers: [CampaignService, CampaignAudience, ConversionService],
  exports: [CampaignService, CampaignAudience, ConversionService],
})
export class CampaignsModule {}
