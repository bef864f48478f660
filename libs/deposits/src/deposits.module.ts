import { Module } from '@nestjs/common';
import { ChainsModule } from '@app/chains';
import { LedgerModule } from '@app/ledger';
import { SubMerchantsModule } from '@app/sub-merchants';
import { ChainCursorsRepository } from './chain-cursors.repository';
import { DetectedTransfersRepository } from './detected-transfers.repository';
import { NetworksStatusController } from './networks-status/networks-status.controller';
import { NetworksStatusService } from './networks-status/networks-status.service';
import { WatcherStatusRepository } from './networks-status/watcher-status.repository';
import { TransferMatcher } from './transfer-matcher';
import { UnmatchedTransferBooks } from './unmatched-transfers/unmatched-transfer-books';
import { UnmatchedTransfersController } from './unmatched-transfers/unmatched-transfers.controller';
import { UnmatchedTransfersRepository } from './unmatched-transfers/unmatched-transfers.repository';
import { UnmatchedTransfersService } from './unmatched-transfers/unmatched-transfers.service';
import { WatchedTokens } from './watched-tokens';

/**
 * What deposit detection keeps and what is read of it: chain cursors, detected and unmatched
 * transfers (and the latter's books), the watched tokens, the watcher's status, and the API's
 * unmatched-transfers and networks-status routes. The watcher itself, which settles sessions, is
 * DepositWatcherModule: it needs the settlement port.
 */
@Module({
  imports: [ChainsModule, LedgerModule, SubMerchantsModule],
  controllers: [UnmatchedTransfersController, NetworksStatusController],
  providers: [
    ChainCursorsRepository,
    DetectedTransfersRepository,
    TransferMatcher,
    // One per process: the watcher and the worker's start check share what it has verified.
    WatchedTokens,
    UnmatchedTransfersRepository,
    UnmatchedTransferBooks,
    UnmatchedTransfersService,
    WatcherStatusRepository,
    NetworksStatusService,
  ],
  exports: [
    ChainCursorsRepository,
    DetectedTransfersRepository,
    TransferMatcher,
    WatchedTokens,
    UnmatchedTransfersRepository,
    UnmatchedTransferBooks,
    UnmatchedTransfersService,
    WatcherStatusRepository,
  ],
})
export class DepositsModule {}
