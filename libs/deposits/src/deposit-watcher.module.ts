import { DynamicModule, Module, Type } from '@nestjs/common';
import { ChainsModule } from '@app/chains';
import { ChainResetService } from './chain-reset.service';
import { DepositWatcherService } from './deposit-watcher.service';
import { DepositsModule } from './deposits.module';

/**
 * The deposit watcher and the chain reset: both settle the sessions whose transfers they change,
 * through the DEPOSIT_SETTLEMENT port (deposit-settlement.port.ts). Re-exports DepositsModule.
 */
@Module({})
export class DepositWatcherModule {
  /**
   * `settlement` is a module that exports DEPOSIT_SETTLEMENT. Taken as an argument, not imported,
   * so that deposits never import the module that implements it (checkout's SettlementModule,
   * wired in CheckoutModule). Register it once per process: its services hold per-process state.
   */
  static settledBy(settlement: Type<unknown>): DynamicModule {
    return {
      module: DepositWatcherModule,
      imports: [ChainsModule, DepositsModule, settlement],
      providers: [DepositWatcherService, ChainResetService],
      exports: [DepositWatcherService, ChainResetService, DepositsModule],
    };
  }
}
