import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { ChainsModule } from '@app/chains';
import { SandboxOnlyMiddleware } from '@app/common';
import { DetectedTransfersRepository } from '@app/deposits/detected-transfers.repository';
import { IdempotencyModule } from '@app/idempotency';
import { LedgerModule } from '@app/ledger';
import { CheckoutModule } from '../checkout.module';
import { CheckoutSessionMapper } from '../checkout-session.mapper';
import { CheckoutSessionsRepository } from '../checkout-sessions.repository';
import { CheckoutTestHelpersController } from './checkout-test-helpers.controller';
import { SessionSimulatorService } from './session-simulator.service';

/** Sandbox simulators of the chain for sessions (docs/sandbox.md). The API's only. */
@Module({
  imports: [CheckoutModule, ChainsModule, IdempotencyModule, LedgerModule],
  controllers: [CheckoutTestHelpersController],
  providers: [
    SessionSimulatorService,
    DetectedTransfersRepository,
    CheckoutSessionsRepository,
    CheckoutSessionMapper,
    SandboxOnlyMiddleware,
  ],
})
export class CheckoutTestHelpersModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(SandboxOnlyMiddleware).forRoutes(CheckoutTestHelpersController);
  }
}
