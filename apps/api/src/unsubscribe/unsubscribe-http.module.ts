// HTTP transport of the unsubscribe link (§14).
import { Module } from '@nestjs/common';
import { UnsubscribeModule } from '@app/domain';
import { UnsubscribeController } from './unsubscribe.controller';

@Module({
  imports: [UnsubscribeModule],
  controllers: [UnsubscribeController],
})
export class UnsubscribeHttpModule {}
