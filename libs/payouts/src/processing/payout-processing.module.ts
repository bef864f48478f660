import { Module } from '@nestjs/common';
import { ChainsModule } from '@app/chains';
import { LedgerModule } from '@app/ledger';
import { PayoutsModule } from '../payouts.module';
import { EvmPayoutTracking } from './evm-payout-tracking';
import { HotWallets } from './hot-wallets';
import { NonceProofWaits } from './nonce-proof-waits';
import { PayoutBroadcaster } from './payout-broadcaster';
import { PayoutCancellation } from './payout-cancellation';
import { PayoutCoverageRepository } from './payout-coverage.repository';
import { PayoutJournalRepository } from './payout-journal.repository';
import { PayoutNoncesRepository } from './payout-nonces.repository';
import { PayoutOutcomes } from './payout-outcomes';
import { PayoutReconciler } from './payout-reconciler';
import { PayoutSender } from './payout-sender';
import { PayoutSigner } from './payout-signer';
import { PayoutTickSteps } from './payout-tick-steps';
import { PayoutTracker } from './payout-tracker';
import { PayoutTrackingRepository } from './payout-tracking.repository';
import { SandboxFunding } from './sandbox-funding';
import { TronPayoutTracking } from './tron-payout-tracking';
import { WalletStatus } from './wallet-status';

/** The sending side of payouts: worker (and operator CLI) only, never the API. */
@Module({
  imports: [PayoutsModule, ChainsModule, LedgerModule],
  providers: [
    HotWallets,
    PayoutJournalRepository,
    PayoutNoncesRepository,
    PayoutCoverageRepository,
    PayoutTrackingRepository,
    PayoutSigner,
    PayoutBroadcaster,
    PayoutOutcomes,
    PayoutSender,
    PayoutTracker,
    PayoutTickSteps,
    EvmPayoutTracking,
    TronPayoutTracking,
    PayoutReconciler,
    WalletStatus,
    PayoutCancellation,
    SandboxFunding,
    NonceProofWaits,
  ],
  exports: [
    PayoutsModule,
    HotWallets,
    PayoutSender,
    PayoutTracker,
    PayoutReconciler,
    WalletStatus,
    PayoutCancellation,
  ],
})
export class PayoutProcessingModule {}
