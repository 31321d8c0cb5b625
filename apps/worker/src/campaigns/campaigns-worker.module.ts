// Worker transport of campaigns: the fan-out's job processor and poll timer.
import { Module } from '@nestjs/common';
import { CampaignsModule } from '@app/domain';
import { CampaignFanoutWorker } from './campaign-fanout.worker';

@Module({
  imports: [CampaignsModule],
  providers: [CampaignFanoutWorker],
})
export class CampaignsWorkerModule {}
