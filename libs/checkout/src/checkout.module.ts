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
import { PayAddressPool } from './pay-addresses/pay-address-pool.service';
import { PayAddressesRepository } from './pay-addresses/pay-addresses.repository';
import { EXCHANGE_RATE_PROVIDER } from './pricing/exchange-rate.provider';
import { PricingService } from './pricing/pricing.service';
import { StaticExchangeRates } from './pricing/static-exchange-rates';
import { SessionTransactionEntity } from './session-transaction.entity';
import { ChainCursorsRepository } from './deposits/chain-cursors.repository';
import { DepositWatcherService } from './deposits/deposit-watcher.service';
import { DetectedTransfersRepository } from './deposits/detected-transfers.repository';
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
  controllers: [CheckoutSessionsController],
  providers: [
    {
      provide: EXCHANGE_RATE_PROVIDER,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => StaticExchangeRates.fromFile(config.fxRatesFile),
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
    DepositWatcherService,
  ],
  exports: [
    CheckoutSessionsService,
    PayAddressPool,
    SessionSettlementService,
    SessionExpiryService,
    DepositWatcherService,
  ],
})
export class CheckoutModule {}
