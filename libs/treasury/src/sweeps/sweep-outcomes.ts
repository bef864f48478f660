import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ChainError, NATIVE_COINS, NetworkName } from '@app/chains';
import { DecodedSweepReceipt } from '@app/chains/sweeps/evm-sweep-receipt';
import {
  fromBaseUnits,
  LedgerAccounts,
  LedgerEntry,
  LedgerService,
  networkFeeEntry,
} from '@app/ledger';
import { LiveSweep, SweepJournalRepository } from './sweep-journal.repository';
import { SweepReceipt } from './evm-sweep-chain';
import { recordSweepOutcome } from './sweep-backoff';
import { failureCounts, foreignDestinations } from './sweep-safety';

/**
 * An address whose sweep fails this many counted times (sweep-safety.ts failureCounts) is frozen:
 * reported, not retried until `treasury:unfreeze`.
 */
export const FAILURES_BEFORE_FROZEN = 3;

/**
 * Ends a sweep on its confirmed receipt, in one database transaction: the tokens each Swept event
 * moved go from `deposits` to the hot wallet or treasury account, the sweeper's fee to network
 * fees, items and addresses take their outcome. Booked from the receipt, never from what was asked.
 */
@Injectable()
export class SweepOutcomes {
  private readonly logger = new Logger(SweepOutcomes.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly journal: SweepJournalRepository,
    private readonly ledger: LedgerService,
  ) {}

  async finish(
    sweep: LiveSweep,
    txHash: string,
    receipt: SweepReceipt,
    decoded: DecodedSweepReceipt,
    /** Failed accounts the token's blacklist names (lowercased): evidence for freezing. */
    blacklisted: ReadonlySet<string> = new Set(),
  ): Promise<boolean> {
    if (receipt.feeWei === null) {
      // Like payouts: a fee is never guessed nor dropped; a later read of the receipt has it.
      throw new ChainError(
        'transient',
        `The receipt of sweep ${sweep.id} (${txHash}) carries no fee; it is read again later`,
        sweep.network,
      );
    }
    const feeWei = receipt.feeWei;
    const foreign = foreignDestinations(decoded.swept, sweep.destination_address);
    if (foreign.length) {
      // Never booked: the delegate sent tokens elsewhere than the journal says. An operator
      // looks at it; the sweep stays Processing.
      this.logger.error(
        {
          sweepId: sweep.id,
          txHash,
          expected: sweep.destination_address,
          destinations: foreign.map((item) => item.destination),
        },
        'Sweep receipt moved tokens to another destination: not booked, left for the operator',
      );
      return false;
    }
    return this.dataSource.transaction(async (manager) => {
      const locked = await this.journal.lockLive(manager, sweep.id);
      if (!locked) return false;
      const entries: LedgerEntry[] = decoded.swept
        .filter((swept) => swept.amount > 0n)
        .map((swept) => sweptEntry(locked, txHash, swept.logIndex, swept.amount));
      await this.bookFee(manager, locked, txHash, feeWei, receipt);
      if (entries.length) await this.ledger.postMany(manager, entries);
      await this.settleItems(manager, locked, receipt, decoded, blacklisted);
      await manager.query(
        `UPDATE sweep_attempts SET status = 'Superseded', updated_at = now()
          WHERE sweep_id = $1 AND tx_hash <> $2 AND status <> 'Superseded'`,
        [locked.id, txHash],
      );
      const error = receipt.succeeded
        ? null
        : `The sweep transaction ${txHash} was mined in block ${receipt.blockNumber} and reverted; nothing moved.`;
      await manager.query(
        `UPDATE sweeps SET status = $2, tx_hash = $3, block_number = $4, error_reason = $5,
                           completed_at = now(), updated_at = now()
          WHERE id = $1`,
        [locked.id, receipt.succeeded ? 'Completed' : 'Failed', txHash, receipt.blockNumber, error],
      );
      this.logger.log(
        {
          sweepId: locked.id,
          network: locked.network,
          txHash,
          swept: decoded.swept.length,
          failed: decoded.failed.length,
          skipped: decoded.skipped.length,
        },
        receipt.succeeded ? 'Sweep completed' : 'Sweep reverted',
      );
      return true;
    });
  }

  /** The nonce went to a transaction that is not one of ours: nothing of this sweep can be mined. */
  async abandon(sweep: LiveSweep, reason: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const locked = await this.journal.lockLive(manager, sweep.id);
      if (!locked) return false;
      await manager.query(
        `UPDATE sweep_items SET status = 'Failed' WHERE sweep_id = $1 AND status = 'Pending'`,
        [locked.id],
      );
      await manager.query(
        `UPDATE sweep_attempts SET status = 'Superseded', updated_at = now() WHERE sweep_id = $1`,
        [locked.id],
      );
      await manager.query(
        `UPDATE sweeps SET status = 'Failed', error_reason = $2, updated_at = now() WHERE id = $1`,
        [locked.id, reason],
      );
      this.logger.warn({ sweepId: locked.id, reason }, 'Sweep abandoned');
      return true;
    });
  }

  /**
   * The sweeper's zero-value send (treasury:cancel-nonce) used the sweep's nonce, its receipt
   * confirmed: nothing of the sweep can be mined. Its fee is booked from that receipt, exactly as
   * a sweep's (`network_fee:<network>:<tx>`, out of the sweeper); the items fail without counting
   * against their addresses, which stay pending and are swept again later.
   */
  async cancelled(
    sweep: { id: string; network: string },
    txHash: string,
    receipt: SweepReceipt,
  ): Promise<boolean> {
    if (receipt.feeWei === null) {
      throw new ChainError(
        'transient',
        `The receipt of the cancel ${txHash} carries no fee; it is read again later`,
        sweep.network,
      );
    }
    const feeWei = receipt.feeWei;
    return this.dataSource.transaction(async (manager) => {
      const locked = await this.journal.lockLive(manager, sweep.id);
      if (!locked) return false;
      await this.bookFee(manager, locked, txHash, feeWei, receipt);
      await manager.query(
        `UPDATE sweep_items SET status = 'Failed' WHERE sweep_id = $1 AND status = 'Pending'`,
        [locked.id],
      );
      await manager.query(
        `UPDATE sweep_attempts
            SET status = CASE WHEN tx_hash = $2 THEN 'Mined' ELSE 'Superseded' END,
                updated_at = now()
          WHERE sweep_id = $1 AND status IN ('Signed', 'Broadcast')`,
        [locked.id, txHash],
      );
      const reason =
        `Cancelled by the operator: the sweeper's zero-value send ${txHash} used nonce ` +
        `${locked.nonce} in block ${receipt.blockNumber}; nothing of the sweep was mined.`;
      await manager.query(
        `UPDATE sweeps SET status = 'Failed', tx_hash = $2, block_number = $3, error_reason = $4,
                           completed_at = now(), updated_at = now()
          WHERE id = $1`,
        [locked.id, txHash, receipt.blockNumber, reason],
      );
      this.logger.warn({ sweepId: locked.id, txHash }, 'Sweep cancelled: its nonce is used');
      return true;
    });
  }

  private async bookFee(
    manager: EntityManager,
    sweep: LiveSweep,
    txHash: string,
    feeWei: bigint,
    receipt: SweepReceipt,
  ): Promise<void> {
    const coin = NATIVE_COINS[sweep.network as NetworkName];
    await this.ledger.post(
      manager,
      networkFeeEntry({
        network: sweep.network,
        txHash,
        feeBaseUnits: feeWei,
        payer: 'sweeper',
        coin,
        block: { number: receipt.blockNumber, hash: receipt.blockHash },
        succeeded: receipt.succeeded,
      }),
    );
  }

  private async settleItems(
    manager: EntityManager,
    sweep: LiveSweep,
    receipt: SweepReceipt,
    decoded: DecodedSweepReceipt,
    blacklisted: ReadonlySet<string>,
  ): Promise<void> {
    const key = (address: string) => address.toLowerCase();
    const swept = new Map(decoded.swept.map((item) => [key(item.account), item.amount]));
    const failed = new Set(decoded.failed.map((item) => key(item.account)));
    const items: Array<{ address: string }> = await manager.query(
      `SELECT address FROM sweep_items WHERE sweep_id = $1`,
      [sweep.id],
    );
    const outcomes = items.map(({ address }): ItemOutcome => {
      const amount = swept.get(key(address));
      if (receipt.succeeded && amount !== undefined) {
        return {
          address,
          status: 'Swept',
          amount: fromBaseUnits(amount, sweep.token_decimals).toFixed(),
        };
      }
      if (receipt.succeeded && failed.has(key(address)))
        return { address, status: 'Failed', amount: null };
      // Skipped (no delegation took effect) or the whole transaction reverted: tried again later.
      return { address, status: receipt.succeeded ? 'Skipped' : 'Failed', amount: null };
    });
    await manager.query(
      `UPDATE sweep_items i SET status = o.status, amount = o.amount::numeric
         FROM json_to_recordset($2::json) AS o(address text, status text, amount text)
        WHERE i.sweep_id = $1 AND i.address = o.address`,
      [sweep.id, JSON.stringify(outcomes)],
    );
    // The sweep's block changed what these addresses hold: a balance read at an earlier block (a
    // lagging backend) shows tokens already swept, and must not sign the sweep again.
    await manager.query(
      `UPDATE sweep_addresses SET pending_block = GREATEST(pending_block, $4), updated_at = now()
        WHERE network = $1 AND currency = $2 AND address = ANY($3) AND pending_since IS NOT NULL`,
      [sweep.network, sweep.currency, items.map((item) => item.address), receipt.blockNumber],
    );
    await recordSweepOutcome(
      manager,
      sweep,
      outcomes.filter((outcome) => outcome.status === 'Swept').map((outcome) => outcome.address),
      outcomes.filter((outcome) => outcome.status !== 'Swept').map((outcome) => outcome.address),
    );
    if (!receipt.succeeded) return; // a reverted transaction says nothing about one address
    const { counted, reset } = failureCounts(outcomes, blacklisted);
    if (reset.length) {
      await manager.query(
        `UPDATE sweep_addresses SET failures = 0, updated_at = now()
          WHERE network = $1 AND currency = $2 AND address = ANY($3) AND failures > 0`,
        [sweep.network, sweep.currency, reset],
      );
    }
    if (counted.length) {
      // The token moved others' tokens in this batch and refused these (a blacklist).
      await manager.query(
        `UPDATE sweep_addresses
            SET failures = failures + 1, updated_at = now(),
                frozen_at = CASE WHEN failures + 1 >= $4 THEN now() ELSE frozen_at END
          WHERE network = $1 AND currency = $2 AND address = ANY($3)`,
        [sweep.network, sweep.currency, counted, FAILURES_BEFORE_FROZEN],
      );
    }
  }
}

interface ItemOutcome {
  address: string;
  status: 'Swept' | 'Failed' | 'Skipped';
  amount: string | null;
}

/** One address's swept tokens: out of deposit addresses, into the hot wallet or the treasury. */
export function sweptEntry(
  sweep: Pick<LiveSweep, 'network' | 'currency' | 'destination' | 'token_decimals'>,
  txHash: string,
  logIndex: number,
  amountBaseUnits: bigint,
): LedgerEntry {
  const amount = fromBaseUnits(amountBaseUnits, sweep.token_decimals);
  const token = { currency: sweep.currency, network: sweep.network };
  const to =
    sweep.destination === 'treasury'
      ? LedgerAccounts.treasury(sweep.network, sweep.currency)
      : LedgerAccounts.hotWallet(sweep.network, sweep.currency);
  return {
    reference: `sweep:${sweep.network}:${txHash}:${logIndex}`,
    kind: 'sweep',
    lines: [
      { account: to, amount, ...token },
      {
        account: LedgerAccounts.deposits(sweep.network, sweep.currency),
        amount: amount.negated(),
        ...token,
      },
    ],
  };
}
