import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig } from '@app/common';
import { ChainsModule } from '@app/chains';
import { DepositsModule, DepositWatcherModule } from '@app/deposits';
import { IdempotencyModule } from '@app/idempotency';
import { SubMerchantsModule } from '@app/sub-merchants';
import { CheckoutSessionEntity } from './checkout-session.entity';
import { CheckoutSessionsController } from './checkout-sessions.controller';
import { CheckoutSessionsRepository } from './checkout-sessions.repository';
import { CheckoutSessionsService } from './checkout-sessions.service';
import { PayAddressPool } from './pay-addresses/pay-address-pool';
import { PayAddressesRepository } from './pay-addresses/pay-addresses.repository';
import { EXCHANGE_RATE_PROVIDER } from './pricing/exchange-rate.provider';
import { PricingService } from './pricing/pricing.service';
import { createExchangeRateProvider } from './pricing/exchange-rates.factory';
import { SessionTransactionEntity } from './session-transaction.entity';
import { SettlementModule } from './settlement/settlement.module';

/**
 * Checkout sessions: creation, pricing, pay addresses, reads, and their settlement. It wires the
 * deposit watcher (libs/deposits) to its settlement, once, and re-exports both, so a process that
 * imports it (API, worker, CLI) watches deposits and settles what they pay.
 */
@Module({
  imports: [
    // First: the API's routes (and its OpenAPI document) list deposits' right after checkout's.
    DepositsModule,
    TypeOrmModule.forFeature([CheckoutSessionEntity, SessionTransactionEntity]),
    ChainsModule,
    IdempotencyModule,
    SubMerchantsModule,
    SettlementModule,
    DepositWatcherModule.settledBy(SettlementModule),
  ],
  controllers: [CheckoutSessionsController],
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
    CheckoutSessionsService,
  ],
  exports: [
    CheckoutSessionsService,
    PayAddressPool,
    SettlementModule,
    DepositsModule,
    DepositWatcherModule,
  ],
})
export class CheckoutModule {}
