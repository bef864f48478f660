import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { NATIVE_COINS, NetworkName } from '@app/chains';
import { LedgerAccounts, LedgerService } from '@app/ledger';
import { TreasuryCommandError } from '../books/treasury-command.error';
import { adjustmentEntry } from './fee-settlement';
import { OVERDUE_CHECKS } from './network-fee-finality';

/** A fee the pass cannot make final (treasury:fees): what the gauge counts, row by row. */
export interface FeeNotFinal {
  network: string;
  tx_hash: string;
  /** `operator` (left for an operator) or `overdue`, as the gauge's `reason` label. */
  reason: 'operator' | 'overdue';
  /** The kind of the account that paid the fee (hot_wallet, sweeper, deposits): its source. */
  source: string | null;
  payer_account: string | null;
  currency: string;
  /** The fee booked, in wei (the coin's base units). */
  fee_wei: string;
  block_number: string | null;
  succeeded: boolean | null;
  booked_at: Date;
  checks: number;
  operator_since: Date | null;
}

export interface OperatorFeeInput {
  network: NetworkName;
  txHash: string;
  /** The operator's decided final fee, in wei. */
  feeWei: bigint;
  by: string;
  reason: string;
}

/** What treasury:settle-fee did. */
export interface OperatorFeeSettled {
  network: string;
  tx_hash: string;
  currency: string;
  booked_fee_wei: string;
  final_fee_wei: string;
  /** final − booked: the adjusting entry's amount on `network_fees` (none when 0). */
  difference_wei: string;
  /** The adjusting entry posted, or null for a difference of 0 (nothing posted). */
  reference: string | null;
  final_at: Date;
  by: string;
  reason: string;
}

/**
 * The operator's way out for a fee the pass leaves not final (docs/treasury.md, "Fees become
 * final"; review r9b M1): before, the books were corrected by hand-written SQL against the ledger.
 * The operator decides the final fee (from an explorer, the receipt on a node they trust); the
 * correction is the pass's own adjusting entry, between the fee entry's two accounts, under a
 * reference of its own (`network_fee_operator:<network>:<tx>`).
 */
@Injectable()
export class OperatorFeeSettlement {
  private readonly logger = new Logger(OperatorFeeSettlement.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: LedgerService,
  ) {}

  /** The rows FEES_NOT_FINAL_SQL counts, of one network or all, oldest booked first. */
  async notFinal(network?: NetworkName): Promise<FeeNotFinal[]> {
    const rows: Array<Omit<FeeNotFinal, 'currency' | 'source'>> = await this.dataSource.query(
      `SELECT r.network, r.tx_hash,
              CASE WHEN r.operator_since IS NULL THEN 'overdue' ELSE 'operator' END AS reason,
              (SELECT l.account FROM ledger_entries e JOIN ledger_lines l ON l.entry_id = e.id
                WHERE e.reference = 'network_fee:' || r.network || ':' || r.tx_hash
                  AND l.amount < 0
                LIMIT 1) AS payer_account,
              r.fee_base_units::text AS fee_wei, r.block_number::text AS block_number,
              r.succeeded, r.booked_at, r.checks, r.operator_since
         FROM network_fee_receipts r
        WHERE r.final_at IS NULL AND (r.operator_since IS NOT NULL OR r.checks >= $1)
          AND ($2::text IS NULL OR r.network = $2)
        ORDER BY r.booked_at, r.network, r.tx_hash`,
      [OVERDUE_CHECKS, network ?? null],
    );
    return rows.map((row) => ({
      network: row.network,
      tx_hash: row.tx_hash,
      reason: row.reason,
      source: row.payer_account?.split(':')[0] ?? null,
      payer_account: row.payer_account,
      currency: NATIVE_COINS[row.network as NetworkName]?.symbol ?? '',
      fee_wei: row.fee_wei,
      block_number: row.block_number,
      succeeded: row.succeeded,
      booked_at: row.booked_at,
      checks: row.checks,
      operator_since: row.operator_since,
    }));
  }

  /**
   * The operator's final fee, in one transaction with the row locked: the difference from the
   * booked fee posted once, the row marked final with who and why. Refused, nothing written: an
   * unknown or final row, one the pass may still decide, books that disagree with the row.
   */
  settle(input: OperatorFeeInput): Promise<OperatorFeeSettled> {
    const { network, txHash, feeWei, by, reason } = input;
    if (feeWei < 0n) throw new TreasuryCommandError('A network fee cannot be negative.');
    const coin = NATIVE_COINS[network];
    const named = `the ${network} fee of ${txHash}`;
    return this.dataSource.transaction(async (manager) => {
      const [row]: Array<{ fee: string; final_at: Date | null; due: boolean; checks: number }> =
        await manager.query(
          `SELECT fee_base_units::text AS fee, final_at, checks,
                  operator_since IS NULL AND checks < $3 AS due
             FROM network_fee_receipts WHERE network = $1 AND tx_hash = $2
              FOR UPDATE`,
          [network, txHash, OVERDUE_CHECKS],
        );
      if (!row) {
        throw new TreasuryCommandError(
          `No fee of ${network} transaction ${txHash} is recorded (network_fee_receipts): ` +
            'nothing settled. treasury:fees lists the fees waiting for an operator.',
        );
      }
      if (row.final_at) {
        throw new TreasuryCommandError(
          `${capital(named)} is final already (since ${row.final_at.toISOString()}): nothing posted.`,
        );
      }
      if (row.due) {
        // The pass decides it from the chain itself within its checks: an operator's guess must
        // not pre-empt a positive proof.
        throw new TreasuryCommandError(
          `${capital(named)} is still checked by the pass (${row.checks} of ${OVERDUE_CHECKS} ` +
            'checks, not left for an operator): nothing posted.',
        );
      }
      const booked = BigInt(row.fee);
      const inBooks = await bookedFeeWei(manager, network, txHash, coin);
      if (inBooks !== booked) {
        throw new TreasuryCommandError(
          `The books hold ${inBooks} wei for ${named} but its row says ${booked}: ` +
            'nothing posted; find what changed the row or the entries first.',
        );
      }
      const difference = feeWei - booked;
      let reference: string | null = null;
      if (difference !== 0n) {
        const entry = await adjustmentEntry(
          manager,
          network,
          txHash,
          difference,
          'network_fee_operator',
        );
        if (!entry) {
          throw new TreasuryCommandError(
            `${capital(named)} has no entry network_fee:${network}:${txHash}: nothing posted.`,
          );
        }
        if (!(await this.ledger.post(manager, entry))) {
          // Rolled back: marked final without this difference, the books would be off by it.
          throw new TreasuryCommandError(
            `An operator's correction of ${named} was posted already (${entry.reference}): ` +
              'nothing posted, the row left as it is.',
          );
        }
        reference = entry.reference;
      }
      const [[updated]]: [Array<{ final_at: Date }>, number] = await manager.query(
        `UPDATE network_fee_receipts
            SET fee_base_units = $3, final_at = now(), settled_by = $4, settled_reason = $5
          WHERE network = $1 AND tx_hash = $2
          RETURNING final_at`,
        [network, txHash, feeWei.toString(), by, reason],
      );
      const settled: OperatorFeeSettled = {
        network,
        tx_hash: txHash,
        currency: coin.symbol,
        booked_fee_wei: booked.toString(),
        final_fee_wei: feeWei.toString(),
        difference_wei: difference.toString(),
        reference,
        final_at: updated.final_at,
        by,
        reason,
      };
      // Committed right after this: a warning, so the CLI's stderr shows it too.
      this.logger.warn(settled, 'Fee made final by an operator');
      return settled;
    });
  }
}

/**
 * What the books hold as the transaction's fee, in wei: the fee entry and its corrections on
 * `network_fees`, whoever posted them.
 */
async function bookedFeeWei(
  manager: EntityManager,
  network: NetworkName,
  txHash: string,
  coin: { symbol: string; decimals: number },
): Promise<bigint> {
  const [{ wei }]: Array<{ wei: string }> = await manager.query(
    `SELECT trunc(COALESCE(sum(l.amount), 0) * power(10::numeric, $3))::text AS wei
       FROM ledger_entries e JOIN ledger_lines l ON l.entry_id = e.id AND l.account = $2
      WHERE e.reference = ANY($1::text[])`,
    [
      ['network_fee', 'network_fee_adjustment', 'network_fee_operator'].map(
        (prefix) => `${prefix}:${network}:${txHash}`,
      ),
      LedgerAccounts.networkFees(network, coin.symbol),
      coin.decimals,
    ],
  );
  return BigInt(wei);
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
