// Worker transport of email sending: the delivery processor and the log's maintenance timers.
import { Module } from '@nestjs/common';
import { MessagingModule } from '@app/domain';
import { EmailProcessor } from './email.processor';
import { MessageRetentionScheduler, MessageSweepScheduler } from './message-maintenance.scheduler';

@Module({
  imports: [MessagingModule],
  providers: [EmailProcessor, MessageSweepScheduler, MessageRetentionScheduler],
})
export class WorkerMessagingModule {}
