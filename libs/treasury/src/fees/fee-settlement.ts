import { Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { NATIVE_COINS, NetworkName } from '@app/chains';
import { fromBaseUnits, LedgerAccounts, LedgerEntry, LedgerService } from '@app/ledger';
import { correctSweepAmounts } from '../sweeps/sweep-reorg-amounts';
import { FeeReceiptRead } from './final-receipts';

type FinalRead = Extract<FeeReceiptRead, { state: 'final' }>;

/** What settling one fee did (NetworkFeeFinality counts them per pass). */
export type SettleOutcome = 'final' | 'adjusted' | 'waiting' | 'operator';

interface NotFinalRow {
  tx_hash: string;
  fee: string;
  block_hash: string | null;
  succeeded: boolean | null;
}

/** Thrown inside a settlement to roll it back whole; the row is then left for an operator. */
class LeftForOperator extends Error {}

/**
 * A fee's final receipt against what was booked (docs/treasury.md, "Fees become final"): the row
 * marked final, an adjusting entry when the fee changed, a batch sweep's amounts corrected; or,
 * where no correction can mend it, nothing at all and the row left for an operator.
 */
export class FeeSettlement {
  private readonly logger = new Logger('NetworkFeeFinality');

  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: LedgerService,
  ) {}

  /** The booked fee against its final receipt, in one transaction with the row locked. */
  async settle(network: NetworkName, txHash: string, read: FinalRead): Promise<SettleOutcome> {
    try {
      return await this.settleLocked(network, txHash, read);
    } catch (error) {
      if (error instanceof LeftForOperator) return 'operator';
      throw error;
    }
  }

  private settleLocked(
    network: NetworkName,
    txHash: string,
    read: FinalRead,
  ): Promise<SettleOutcome> {
    return this.dataSource.transaction(async (manager) => {
      const [row]: NotFinalRow[] = await manager.query(
        `SELECT tx_hash, fee_base_units::text AS fee, block_hash, succeeded
           FROM network_fee_receipts
          WHERE network = $1 AND tx_hash = $2 AND final_at IS NULL
          FOR UPDATE`,
        [network, txHash],
      );
      // Another pass got there first.
      if (!row) return 'waiting';
      const context = { network, txHash, blockNumber: read.blockNumber, blockHash: read.blockHash };
      if (row.succeeded !== null && row.succeeded !== read.succeeded) {
        // What the flow booked besides the fee (a payout completed or failed, tokens swept or
        // not) followed the first status: no fee correction can mend that.
        this.logger.error(
          { ...context, bookedSucceeded: row.succeeded, finalSucceeded: read.succeeded },
          'A reorg changed the status of a transaction already booked: left for an operator',
        );
        return 'operator';
      }
      if (read.feeWei === null) return 'waiting';
      const booked = BigInt(row.fee);
      const difference = read.feeWei - booked;
      if (difference !== 0n) {
        if (row.block_hash === read.blockHash) {
          this.logger.error(
            { ...context, booked: row.fee, final: read.feeWei.toString() },
            'The same receipt tells another fee than the one booked: left for an operator',
          );
          return 'operator';
        }
        const entry = await adjustmentEntry(manager, network, txHash, difference);
        if (!entry) {
          this.logger.error(context, 'A fee receipt without its fee entry: left for an operator');
          return 'operator';
        }
        if (!(await this.ledger.post(manager, entry))) {
          // The reference is taken: the fee was corrected once already (a row re-opened, or a
          // second reorg deeper than finality). Marked final, the books would miss this one.
          this.logger.error(
            { ...context, booked: row.fee, final: read.feeWei.toString() },
            'A fee correction not posted (its reference is taken): left for an operator',
          );
          return 'operator';
        }
      }
      // A batch sweep moves whole balances: the same bytes mined again may have moved less.
      const sweep =
        row.block_hash !== read.blockHash && read.succeeded
          ? await correctSweepAmounts(manager, this.ledger, network, txHash, read)
          : 'unchanged';
      // All or nothing: the fee's adjustment goes back with it, so an operator finds the row as
      // it was booked (review r9d), not half corrected.
      if (sweep === 'not-posted') throw new LeftForOperator();
      if (difference !== 0n) {
        // Here, past the last point that rolls the settlement back (review r11, 6).
        this.logger.warn(
          { ...context, booked: row.fee, final: read.feeWei.toString() },
          'Fee corrected: the transaction was mined again at another price',
        );
      }
      await manager.query(
        `UPDATE network_fee_receipts
            SET fee_base_units = $3, block_number = $4, block_hash = $5, succeeded = $6,
                final_at = now()
          WHERE network = $1 AND tx_hash = $2`,
        [network, txHash, read.feeWei.toString(), read.blockNumber, read.blockHash, read.succeeded],
      );
      return difference === 0n && sweep !== 'corrected' ? 'final' : 'adjusted';
    });
  }
}

/**
 * Who corrects a fee: the pass that makes fees final, or an operator (treasury:settle-fee, review
 * r9b M1). Each its own reference prefix, so each posts at most one correction per transaction.
 */
export type FeeCorrectionKind = 'network_fee_adjustment' | 'network_fee_operator';

/**
 * The difference (wei, signed) between the same two accounts as the fee's entry: more expense
 * out of the payer when the final fee is higher, back to it when lower. One per transaction and
 * kind (its reference `<kind>:<network>:<tx>`): a repeat posts nothing. Null when the fee's own
 * entry is not in the books.
 */
export async function adjustmentEntry(
  manager: EntityManager,
  network: NetworkName,
  txHash: string,
  difference: bigint,
  kind: FeeCorrectionKind = 'network_fee_adjustment',
): Promise<LedgerEntry | null> {
  const lines: Array<{ account: string; currency: string }> = await manager.query(
    `SELECT l.account, l.currency
       FROM ledger_entries e JOIN ledger_lines l ON l.entry_id = e.id
      WHERE e.reference = $1`,
    [`network_fee:${network}:${txHash}`],
  );
  const coin = NATIVE_COINS[network];
  const expense = LedgerAccounts.networkFees(network, coin.symbol);
  const payer = lines.find((line) => line.account !== expense);
  if (!payer || !lines.some((line) => line.account === expense)) return null;
  const magnitude = fromBaseUnits(difference < 0n ? -difference : difference, coin.decimals);
  const amount = difference < 0n ? magnitude.negated() : magnitude;
  const line = { currency: coin.symbol, network };
  return {
    reference: `${kind}:${network}:${txHash}`,
    kind,
    lines: [
      { account: expense, amount, ...line },
      { account: payer.account, amount: amount.negated(), ...line },
    ],
  };
}
