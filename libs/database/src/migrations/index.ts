import { Foundation1763800000000 } from './1763800000000-foundation';
import { SubMerchants1763900000000 } from './1763900000000-sub-merchants';
import { DepositsAndLedger1764000000000 } from './1764000000000-deposits-and-ledger';
import { Payouts1764100000000 } from './1764100000000-payouts';
import { EventsAndWebhooks1764200000000 } from './1764200000000-events-and-webhooks';
import { SessionFeeRule1764300000000 } from './1764300000000-session-fee-rule';
import { UnmatchedTransfers1764400000000 } from './1764400000000-unmatched-transfers';
import { WatcherStatus1764500000000 } from './1764500000000-watcher-status';
import { ChainBlocks1764600000000 } from './1764600000000-chain-blocks';
import { ListIndexes1764700000000 } from './1764700000000-list-indexes';
import { LedgerBalancesPerStatement1764800000000 } from './1764800000000-ledger-balances-per-statement';
import { LedgerBalanceCheckPerStatement1764900000000 } from './1764900000000-ledger-balance-check-per-statement';
import { LedgerBalanceCheckNewLines1765000000000 } from './1765000000000-ledger-balance-check-new-lines';
import { LedgerLineEntriesPerStatement1765100000000 } from './1765100000000-ledger-line-entries-per-statement';
import { WatcherHeadMovedAt1765200000000 } from './1765200000000-watcher-head-moved-at';
import { LedgerLineEntriesEmptyStatement1765300000000 } from './1765300000000-ledger-line-entries-empty-statement';
import { EncryptWebhookSecrets1765400000000 } from './1765400000000-encrypt-webhook-secrets';
import { PayoutAttemptPurpose1765500000000 } from './1765500000000-payout-attempt-purpose';
import { PayoutAttemptsWalletNonce1765600000000 } from './1765600000000-payout-attempts-wallet-nonce';
import { TreasuryWallets1765700000000 } from './1765700000000-treasury-wallets';
import { Sweeps1765800000000 } from './1765800000000-sweeps';
import { TreasuryBooks1765900000000 } from './1765900000000-treasury-books';
import { Refunds1766000000000 } from './1766000000000-refunds';
import { ReconciliationLocations1766100000000 } from './1766100000000-reconciliation-locations';
import { RefundReview1766200000000 } from './1766200000000-refund-review';
import { RefundHoldAccount1766320000000 } from './1766320000000-refund-hold-account';
import { SweepCancelAndBackoff1766330000000 } from './1766330000000-sweep-cancel-and-backoff';
import { RefundDestinationExpiry1766340000000 } from './1766340000000-refund-destination-expiry';
import { MerchantConsole1766400000000 } from './1766400000000-merchant-console';
import { RequestLog1766430000000 } from './1766430000000-request-log';
import { OperatorRoles1766440000000 } from './1766440000000-operator-roles';
import { ConsoleSignInThrottles1766450000000 } from './1766450000000-console-sign-in-throttles';
import { FreshCodeFailuresIndex1766460000000 } from './1766460000000-fresh-code-failures-index';
import { DropRequireTwoFactor1766470000000 } from './1766470000000-drop-require-two-factor';
import { ConsolePasswordResets1766530000000 } from './1766530000000-console-password-resets';
import { ConsolePasskeys1766540000000 } from './1766540000000-console-passkeys';
import { PayoutBatches1766560000000 } from './1766560000000-payout-batches';
import { LedgerBalanceChanges1766570000000 } from './1766570000000-ledger-balance-changes';
import { RefundSendAfter1766500000000 } from './1766500000000-refund-send-after';
import { UnmatchedChainForgotten1766580000000 } from './1766580000000-unmatched-chain-forgotten';
import { SweepTrxReadWaiting1766580000001 } from './1766580000001-sweep-trx-read-waiting';
import { LedgerBalanceChangesMerchantOnly1766590000000 } from './1766590000000-ledger-balance-changes-merchant-only';
import { PayoutBatchFinished1795836026696 } from './1795836026696-payout-batch-finished';
import { PayoutAwaitingSimulation1795836083082 } from './1795836083082-payout-awaiting-simulation';
import { NonceProofs1795836459785 } from './1795836459785-nonce-proofs';
import { DataRetention1795836614861 } from './1795836614861-data-retention';
import { TraceContext1795837885066 } from './1795837885066-trace-context';
import { PayoutsFinishedIndex1795838000000 } from './1795838000000-payouts-finished-index';
import { NetworkFeeReceipts1795839000000 } from './1795839000000-network-fee-receipts';
import { NetworkFeeReceiptsNextCheck1795839500000 } from './1795839500000-network-fee-receipts-next-check';
import { NetworkFeeReceiptsTronFinal1795839600000 } from './1795839600000-network-fee-receipts-tron-final';
import { NetworkFeeReceiptsOperator1795839700000 } from './1795839700000-network-fee-receipts-operator';
import { NonceProofWaitsUnused1795839800000 } from './1795839800000-nonce-proof-waits-unused';
import { NetworkFeeReceiptsSettledBy1795839900000 } from './1795839900000-network-fee-receipts-settled-by';

/** Every migration in order. Listed explicitly so compiled and ts-node runs see the same set. */
export const MIGRATIONS = [
  Foundation1763800000000,
  SubMerchants1763900000000,
  DepositsAndLedger1764000000000,
  Payouts1764100000000,
  EventsAndWebhooks1764200000000,
  SessionFeeRule1764300000000,
  UnmatchedTransfers1764400000000,
  WatcherStatus1764500000000,
  ChainBlocks1764600000000,
  ListIndexes1764700000000,
  LedgerBalancesPerStatement1764800000000,
  LedgerBalanceCheckPerStatement1764900000000,
  LedgerBalanceCheckNewLines1765000000000,
  LedgerLineEntriesPerStatement1765100000000,
  WatcherHeadMovedAt1765200000000,
  LedgerLineEntriesEmptyStatement1765300000000,
  EncryptWebhookSecrets1765400000000,
  PayoutAttemptPurpose1765500000000,
  PayoutAttemptsWalletNonce1765600000000,
  TreasuryWallets1765700000000,
  Sweeps1765800000000,
  TreasuryBooks1765900000000,
  Refunds1766000000000,
  ReconciliationLocations1766100000000,
  RefundReview1766200000000,
  RefundHoldAccount1766320000000,
  SweepCancelAndBackoff1766330000000,
  RefundDestinationExpiry1766340000000,
  MerchantConsole1766400000000,
  RequestLog1766430000000,
  OperatorRoles1766440000000,
  ConsoleSignInThrottles1766450000000,
  FreshCodeFailuresIndex1766460000000,
  DropRequireTwoFactor1766470000000,
  RefundSendAfter1766500000000,
  ConsolePasswordResets1766530000000,
  ConsolePasskeys1766540000000,
  PayoutBatches1766560000000,
  LedgerBalanceChanges1766570000000,
  UnmatchedChainForgotten1766580000000,
  SweepTrxReadWaiting1766580000001,
  LedgerBalanceChangesMerchantOnly1766590000000,
  PayoutBatchFinished1795836026696,
  PayoutAwaitingSimulation1795836083082,
  NonceProofs1795836459785,
  DataRetention1795836614861,
  TraceContext1795837885066,
  PayoutsFinishedIndex1795838000000,
  NetworkFeeReceipts1795839000000,
  NetworkFeeReceiptsNextCheck1795839500000,
  NetworkFeeReceiptsTronFinal1795839600000,
  NetworkFeeReceiptsOperator1795839700000,
  NonceProofWaitsUnused1795839800000,
  NetworkFeeReceiptsSettledBy1795839900000,
];
