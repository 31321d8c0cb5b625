// Worker transport of email sending: the delivery processor and the log's maintenance timers.
import { Module } from '@nestjs/common';
import { MessagingModule } from '@app/domain';
import { EmailProcessor } from './email.processor';
import { MessageMaintenanceScheduler } from './message-maintenance.scheduler';

@Module({
  imports: [MessagingModule],
  providers: [EmailProcessor, MessageMaintenanceScheduler],
})
export class WorkerMessagingModule {}
