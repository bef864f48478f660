import { Module } from '@nestjs/common';
import { LedgerModule } from '@app/ledger';
import { SubMerchantsModule } from '@app/sub-merchants';
import { BalancesController } from './balances.controller';
import { BalancesService } from './balances.service';

@Module({
  imports: [LedgerModule, SubMerchantsModule],
  controllers: [BalancesController],
  providers: [BalancesService],
})
export class BalancesModule {}
