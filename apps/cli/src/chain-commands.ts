import { PayAddressPool } from '@app/checkout';
import {
  ChainResetService,
  UNMATCHED_REASONS,
  UNMATCHED_STATUSES,
  UnmatchedReason,
  UnmatchedStatus,
  UnmatchedTransfersService,
} from '@app/deposits';
import { CHAIN_FAMILIES, ChainFamily, NETWORK_NAMES, NetworkName } from '@app/chains';
import { APP_CONFIG, AppConfig } from '@app/common';
import { SweepChainReset } from '@app/treasury';
import { Command, listOption, required } from './cli-options';
import { UsageError } from './usage-error';

/**
 * The chains we watch: transfers to our addresses no session took, a chain that is gone
 * (chains:forget), and the pay addresses derived ahead for new sessions.
 */
export const CHAIN_COMMANDS: Record<string, Command> = {
  'unmatched:list': async (app, options) => {
    const network = options.network === undefined ? undefined : String(options.network);
    if (network !== undefined && !(NETWORK_NAMES as readonly string[]).includes(network)) {
      throw new UsageError(`--network must be one of ${NETWORK_NAMES.join(', ')}.`);
    }
    const limit = Number(options.limit ?? 100);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      throw new UsageError('--limit must be a whole number from 1 to 1000.');
    }
    return app.get(UnmatchedTransfersService).listForOperator({
      merchantId: typeof options.merchant === 'string' ? options.merchant.trim() : undefined,
      network,
      reasons: listOption<UnmatchedReason>(options, 'reason', UNMATCHED_REASONS),
      statuses: listOption<UnmatchedStatus>(options, 'status', UNMATCHED_STATUSES),
      limit,
    });
  },

  'chains:forget': async (app, options) => {
    const network = required(options, 'network');
    if (!(NETWORK_NAMES as readonly string[]).includes(network)) {
      throw new UsageError(`--network must be one of ${NETWORK_NAMES.join(', ')}.`);
    }
    const report = await app.get(ChainResetService).forget(network as NetworkName);
    // The sweeper's nonce lane and live sweeps of the gone chain, as payouts' nonces are reset.
    const sweeps = await app.get(SweepChainReset).forget(network as NetworkName);
    return {
      network: report.network,
      reverted_transfers: report.revertedTransfers,
      settled_sessions: report.settledSessions,
      reverted_unmatched_transfers: report.revertedUnmatched,
      kept_refunded_unmatched_transfers: report.keptRefundedUnmatched,
      forgotten_nonce_proofs: report.forgottenNonceProofs,
      ended_sweeps: sweeps.endedSweeps,
      sweeper_nonce_reset: sweeps.sweeperNonceReset,
      reversed_unmatched_native: sweeps.reversedStrangerCoin,
      finalized_fees: sweeps.finalizedFees,
    };
  },

  'pool:fill': async (app, options) => {
    // By default up to the pool size the worker keeps (PAY_ADDRESS_POOL_TARGET).
    const count = Number(options.count ?? app.get<AppConfig>(APP_CONFIG).payAddressPool.targetSize);
    if (!Number.isInteger(count) || count < 1 || count > 1_000_000) {
      throw new UsageError('--count must be a whole number from 1 to 1000000.');
    }
    const families = options.family ? [String(options.family)] : [...CHAIN_FAMILIES];
    const pool = app.get(PayAddressPool);
    const added: Record<string, number> = {};
    for (const family of families) {
      if (!CHAIN_FAMILIES.includes(family as ChainFamily)) {
        throw new UsageError(`--family must be one of ${CHAIN_FAMILIES.join(', ')}.`);
      }
      added[family] = await pool.refill(family as ChainFamily, count, count);
    }
    return { added };
  },
};

/** Apart from CHAIN_USAGE: the usage lists pool:fill after the keys, before the payouts. */
export const POOL_USAGE = `  pool:fill [--count N] [--family EVM|TRON]    pre-derive pay addresses up to N unclaimed (default: the pool target)`;

export const CHAIN_USAGE = `  unmatched:list [--network NETWORK] [--reason REASON[,REASON]] [--status STATUS]...
                 [--merchant MERCHANT_ID] [--limit N]
                                               transfers to our addresses that no session took
                                               (reasons wrong_network, wrong_token,
                                               session_already_paid, session_refunded,
                                               unknown_address; statuses detected, reverted),
                                               every merchant's and those of no merchant, newest
                                               first, at most N (default 100)
  chains:forget --network NETWORK              after a devnet restart or testnet reset only: the
                                               chain the watcher followed is gone; its transfers
                                               are taken back and the watcher starts afresh;
                                               its live sweeps end and the sweeper's nonces
                                               start again from the node's count`;
