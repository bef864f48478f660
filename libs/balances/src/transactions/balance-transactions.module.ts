import { Module } from '@nestjs/common';
import { SubMerchantsModule } from '@app/sub-merchants';
import { BalanceTransactionsController } from './balance-transactions.controller';
import { BalanceTransactionsRepository } from './balance-transactions.repository';
import { BalanceTransactionsService } from './balance-transactions.service';

/** GET /v1/balance-transactions: the statement of a merchant's balances (docs/balance-transactions.md). */
@Module({
  imports: [SubMerchantsModule],
  controllers: [BalanceTransactionsController],
  providers: [BalanceTransactionsService, BalanceTransactionsRepository],
})
export class BalanceTransactionsModule {}
