import { Module } from '@nestjs/common';
import { ChainsModule } from '@app/chains';
import { LedgerModule } from '@app/ledger';
import { FundingBooks } from './books/funding-books';
import { NetworkFeeFinality } from './fees/network-fee-finality';
import { OperatorFeeSettlement } from './fees/operator-fee-settlement';
import { ChainBalanceReaders } from './reconciliation/chain-balance-readers';
import { ReconciliationRepository } from './reconciliation/reconciliation.repository';
import { ReconciliationService } from './reconciliation/reconciliation.service';
import { EvmSweeper } from './sweeps/evm-sweeper';
import { EvmTopUpBooks } from './sweeps/evm-top-up-books';
import { EvmTopUpJournalRepository } from './sweeps/evm-top-up-journal.repository';
import { EvmTopUpSweeper } from './sweeps/evm-top-up-sweeper';
import { EvmTopUpTracker } from './sweeps/evm-top-up-tracker';
import { SweepBroadcaster } from './sweeps/sweep-broadcaster';
import { SweepJournalRepository } from './sweeps/sweep-journal.repository';
import { SweepKeys } from './sweeps/sweep-keys';
import { SweepOutcomes } from './sweeps/sweep-outcomes';
import { SweepPlannerRepository } from './sweeps/sweep-planner.repository';
import { SweepChainReset } from './sweeps/sweep-chain-reset';
import { StrangerCoin } from './sweeps/stranger-coin';
import { SweepNonceCancellation } from './sweeps/sweep-nonce-cancellation';
import { SweepStatus } from './sweeps/sweep-status';
import { SweepTracker } from './sweeps/sweep-tracker';
import { TreasurySweeps } from './sweeps/treasury-sweeps';
import { TronSweepBooks } from './sweeps/tron-sweep-books';
import { TronSweepChains } from './sweeps/tron-sweep-chains';
import { TronSweepJournalRepository } from './sweeps/tron-sweep-journal.repository';
import { TronSweepPlanner } from './sweeps/tron-sweep-planner';
import { TronSweepSteps } from './sweeps/tron-sweep-steps';

/**
 * The service's own money: sweeps from deposit addresses, the books of where every unit is, and
 * reconciliation of those books against the chains (docs/treasury.md).
 */
@Module({
  imports: [ChainsModule, LedgerModule],
  providers: [
    NetworkFeeFinality,
    OperatorFeeSettlement,
    ReconciliationRepository,
    ChainBalanceReaders,
    ReconciliationService,
    FundingBooks,
    SweepKeys,
    SweepPlannerRepository,
    SweepJournalRepository,
    SweepBroadcaster,
    SweepOutcomes,
    EvmSweeper,
    SweepTracker,
    EvmTopUpJournalRepository,
    EvmTopUpBooks,
    EvmTopUpSweeper,
    EvmTopUpTracker,
    TronSweepChains,
    TronSweepJournalRepository,
    TronSweepBooks,
    TronSweepSteps,
    TronSweepPlanner,
    TreasurySweeps,
    SweepStatus,
    SweepChainReset,
    SweepNonceCancellation,
    StrangerCoin,
  ],
  exports: [
    NetworkFeeFinality,
    OperatorFeeSettlement,
    ReconciliationService,
    ReconciliationRepository,
    FundingBooks,
    TreasurySweeps,
    SweepKeys,
    SweepStatus,
    SweepChainReset,
    SweepNonceCancellation,
    TronSweepPlanner,
    TronSweepSteps,
    TronSweepChains,
    SweepPlannerRepository,
  ],
})
export class TreasuryModule {}
