import { Module } from '@nestjs/common';
import { ChainsModule } from '@app/chains';
import { HostedCheckoutController } from './hosted-checkout.controller';
import { PageAssets } from './page-assets';
import { PublicSessionsRepository } from './public-sessions.repository';
import { PublicSessions } from './public-sessions';
import { SessionChanges } from './session-changes';
import { StreamSlots } from './stream-slots';

/** The hosted checkout page; the API imports it (the worker has no HTTP). */
@Module({
  imports: [ChainsModule],
  controllers: [HostedCheckoutController],
  providers: [PublicSessionsRepository, PublicSessions, SessionChanges, StreamSlots, PageAssets],
})
export class HostedPageModule {}
