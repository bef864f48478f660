import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig } from '@app/common';
import { ChainsModule } from '@app/chains';
import { IdempotencyModule } from '@app/idempotency';
import { EventOutboxModule } from '@app/events';
import { LedgerModule } from '@app/ledger';
import { SubMerchantsModule } from '@app/sub-merchants';
import { CheckoutSessionEntity } from './checkout-session.entity';
import { CheckoutSessionMapper } from './checkout-session.mapper';
import { CheckoutSessionsController } from './checkout-sessions.controller';
import { CheckoutSessionsRepository } from './checkout-sessions.repository';
import { CheckoutSessionsService } from './checkout-sessions.service';
import { PayAddressPool } from './pay-addresses/pay-address-pool';
import { PayAddressesRepository } from './pay-addresses/pay-addresses.repository';
import { EXCHANGE_RATE_PROVIDER } from './pricing/exchange-rate.provider';
import { PricingService } from './pricing/pricing.service';
import { createExchangeRateProvider } from './pricing/exchange-rates.factory';
import { SessionTransactionEntity } from './session-transaction.entity';
import { ChainCursorsRepository } from '@app/deposits/chain-cursors.repository';
import { DepositWatcherService } from '@app/deposits/deposit-watcher.service';
import { ChainResetService } from '@app/deposits/chain-reset.service';
import { DetectedTransfersRepository } from '@app/deposits/detected-transfers.repository';
import { TransferMatcher } from '@app/deposits/transfer-matcher';
import { WatchedTokens } from '@app/deposits/watched-tokens';
import { WatcherStatusRepository } from '@app/deposits/networks-status/watcher-status.repository';
import { NetworksStatusController } from '@app/deposits/networks-status/networks-status.controller';
import { NetworksStatusService } from '@app/deposits/networks-status/networks-status.service';
import { UnmatchedTransferBooks } from '@app/deposits/unmatched-transfers/unmatched-transfer-books';
import { UnmatchedTransfersRepository } from '@app/deposits/unmatched-transfers/unmatched-transfers.repository';
import { UnmatchedTransfersController } from '@app/deposits/unmatched-transfers/unmatched-transfers.controller';
import { UnmatchedTransfersService } from '@app/deposits/unmatched-transfers/unmatched-transfers.service';
import { SessionExpiryService } from './settlement/session-expiry.service';
import { SessionEvents } from './settlement/session-events';
import { SessionSettlementService } from './settlement/session-settlement.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([CheckoutSessionEntity, SessionTransactionEntity]),
    ChainsModule,
    IdempotencyModule,
    SubMerchantsModule,
    LedgerModule,
    EventOutboxModule,
  ],
  controllers: [CheckoutSessionsController, UnmatchedTransfersController, NetworksStatusController],
  providers: [
    {
      provide: EXCHANGE_RATE_PROVIDER,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => createExchangeRateProvider(config),
    },
    PricingService,
    PayAddressesRepository,
    PayAddressPool,
    CheckoutSessionsRepository,
    CheckoutSessionMapper,
    CheckoutSessionsService,
    SessionEvents,
    SessionSettlementService,
    SessionExpiryService,
    ChainCursorsRepository,
    DetectedTransfersRepository,
    TransferMatcher,
    WatchedTokens,
    UnmatchedTransfersRepository,
    UnmatchedTransferBooks,
    UnmatchedTransfersService,
    WatcherStatusRepository,
    NetworksStatusService,
    DepositWatcherService,
    ChainResetService,
  ],
  exports: [
    CheckoutSessionsService,
    PayAddressPool,
    SessionSettlementService,
    SessionExpiryService,
    DepositWatcherService,
    ChainResetService,
    UnmatchedTransfersService,
    UnmatchedTransferBooks,
  ],
})
export class CheckoutModule {}
