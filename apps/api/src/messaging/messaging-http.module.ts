// HTTP transport of sending: the send API (with its per-IP limits), the message log and
// the tracking endpoints.
import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { IdempotencyModule, MessagingModule } from '@app/domain';
import { MessagesController } from './messages.controller';
import { SendChannelsController } from './send-channels.controller';
import { SendController } from './send.controller';
import { SendIpLimitsMiddleware } from './send-ip-limits';
import { TrackingController } from './tracking.controller';

@Module({
  imports: [MessagingModule, IdempotencyModule],
  controllers: [SendController, SendChannelsController, MessagesController, TrackingController],
})
export class MessagingHttpModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(SendIpLimitsMiddleware).forRoutes(SendController, SendChannelsController);
  }
}
