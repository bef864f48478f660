import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { NATIVE_COINS, NetworkName } from '@app/chains';
import { LedgerService, networkFeeEntry } from '@app/ledger';
import { PayoutEvents } from '../payout-events';
import { PendingReason } from '../payout.types';
import { completionEntry, releaseEntry } from '../payout-ledger';
import { PayoutJournalRepository } from './payout-journal.repository';

/** The mined transaction a payout ends with, and what its receipt says it cost the hot wallet. */
export interface MinedPayoutTransaction {
  txHash: string;
  /** Base units of the native coin; null when the transaction is not ours (nothing to book). */
  feeBaseUnits: bigint | null;
}

/**
 * The final states of a payout, each in one transaction with its ledger entry and guarded by the
 * payout's status (compare-and-set): a payout ends once, whoever gets there first.
 */
@Injectable()
export class PayoutOutcomes {
  private readonly logger = new Logger(PayoutOutcomes.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly journal: PayoutJournalRepository,
    private readonly ledger: LedgerService,
    private readonly events: PayoutEvents,
  ) {}

  /**
   * Confirmed on chain: held -> out of the hot wallet (net) and fees (fee); the transaction's
   * network fee out of the hot wallet's native coin.
   */
  async complete(payoutId: string, mined: MinedPayoutTransaction): Promise<boolean> {
    const { txHash } = mined;
    return this.dataSource.transaction(async (manager) => {
      const payout = await this.journal.lockProcessing(manager, payoutId);
      if (!payout) return false;
      await this.journal.markCompleted(manager, payoutId, txHash);
      await this.ledger.post(manager, completionEntry(payout));
      await this.bookNetworkFee(manager, payout.network, mined, true);
      await this.events.statusChanged(manager, payoutId, 'Processing');
      this.logger.log({ payoutId, txHash }, 'Payout completed');
      return true;
    });
  }

  /**
   * The chain refused it (mined and reverted), or an operator's cancel took its nonce: no token
   * left the wallet, the funds go back. The gas of our mined transaction was paid all the same.
   */
  async failProcessing(
    payoutId: string,
    reason: string,
    mined: MinedPayoutTransaction,
  ): Promise<boolean> {
    const { txHash } = mined;
    return this.dataSource.transaction(async (manager) => {
      const payout = await this.journal.lockProcessing(manager, payoutId);
      if (!payout) return false;
      await this.journal.markFailed(manager, payoutId, reason, txHash);
      await this.ledger.post(manager, releaseEntry(payout));
      // A transfer of the payout fails only reverted; an operator's cancel may have succeeded.
      const [attempt]: Array<{ purpose: string }> = await manager.query(
        `SELECT purpose FROM payout_attempts WHERE payout_id = $1 AND tx_hash = $2`,
        [payoutId, txHash],
      );
      const succeeded = attempt?.purpose === 'transfer' ? false : null;
      await this.bookNetworkFee(manager, payout.network, mined, succeeded);
      await this.events.statusChanged(manager, payoutId, 'Processing');
      this.logger.warn({ payoutId, txHash, reason }, 'Payout failed');
      return true;
    });
  }

  /** Never signed (e.g. the hot wallet cannot cover it and the operator chose to fail): released. */
  async failPending(payoutId: string, reason: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const payout = await this.journal.lockSendable(manager, payoutId);
      if (!payout) return false;
      await this.journal.markFailed(manager, payoutId, reason, null);
      await this.ledger.post(manager, releaseEntry(payout));
      await this.events.statusChanged(manager, payoutId, 'Pending');
      this.logger.warn({ payoutId, reason }, 'Payout failed before sending');
      return true;
    });
  }

  /**
   * Once per transaction hash (the entry's reference), in the transaction that ends the payout.
   * `succeeded`: the receipt's status as the outcome implies it (a completion's transfer
   * succeeded, a failed transfer reverted; a mined cancel is not told), recorded with the fee so a
   * reorg that flips it is left to an operator (docs/treasury.md, "Fees become final").
   */
  private async bookNetworkFee(
    manager: EntityManager,
    network: string,
    mined: MinedPayoutTransaction,
    succeeded: boolean | null = null,
  ): Promise<void> {
    if (mined.feeBaseUnits === null) return;
    const entry = networkFeeEntry({
      network,
      txHash: mined.txHash,
      feeBaseUnits: mined.feeBaseUnits,
      payer: 'hot_wallet',
      coin: NATIVE_COINS[network as NetworkName],
      succeeded,
    });
    await this.ledger.post(manager, entry);
  }
}

/** Why a payout the hot wallet cannot cover fails (PAYOUT_HOT_WALLET_SHORTFALL=fail). */
export function shortfallMessage(reason: PendingReason): string {
  switch (reason) {
    case 'hot_wallet_insufficient_token':
      return 'The hot wallet does not hold enough tokens for this payout.';
    case 'hot_wallet_insufficient_gas':
      return 'The hot wallet cannot pay the network fee for this payout.';
    case 'hot_wallet_not_configured':
      return 'No hot wallet is configured for this network.';
    default:
      return `Payout could not be sent (${reason}).`;
  }
}
