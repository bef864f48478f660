import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { SandboxOnlyMiddleware } from '@app/common';
import { IdempotencyModule } from '@app/idempotency';
import { LedgerModule } from '@app/ledger';
import { PayoutsModule } from '../payouts.module';
import { PayoutJournalRepository } from '../processing/payout-journal.repository';
import { PayoutSimulatorService } from './payout-simulator.service';
import { PayoutTestHelpersController } from './payout-test-helpers.controller';

/** Sandbox endings of payouts without a chain (docs/sandbox.md). The API's only. */
@Module({
  imports: [PayoutsModule, IdempotencyModule, LedgerModule],
  controllers: [PayoutTestHelpersController],
  providers: [PayoutSimulatorService, PayoutJournalRepository, SandboxOnlyMiddleware],
})
export class PayoutTestHelpersModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(SandboxOnlyMiddleware).forRoutes(PayoutTestHelpersController);
  }
}
