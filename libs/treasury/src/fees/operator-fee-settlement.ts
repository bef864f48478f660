import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { NATIVE_COINS, NetworkName } from '@app/chains';
import { LedgerAccounts, LedgerService } from '@app/ledger';
import { TreasuryCommandError } from '../books/treasury-command.error';
import { adjustmentEntry } from './fee-settlement';
import { FEE_NOT_FINAL_REASON, FEE_NOT_FINAL_WHERE, OVERDUE_CHECKS } from './network-fee-finality';
import {
  FEE_ATTEMPT_SQL,
  FeeAttempt,
  feeAttempt,
  isBatchSweep,
  isLarge,
  LARGE_FACTOR,
  printable,
} from './operator-fee-checks';

/** A fee the pass cannot make final (treasury:fees): what the gauge counts, row by row. */
export interface FeeNotFinal extends FeeAttempt {
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
  /** The operator compared a batch sweep's Swept events with its items (--sweep-amounts-checked). */
  sweepAmountsChecked?: boolean;
  /** A fee above LARGE_FACTOR × the one booked is meant (--confirm-large). */
  confirmLarge?: boolean;
  /** Print what would be done, write nothing (--dry-run). */
  dryRun?: boolean;
}

/** A page of treasury:fees and how many rows it left out. */
export interface FeesNotFinalPage {
  rows: FeeNotFinal[];
  more: number;
}

/** What treasury:settle-fee --dry-run prints: what a run would post, nothing written. */
export interface OperatorFeePreview extends FeeAttempt {
  dry_run: true;
  row: Record<string, unknown>;
  currency: string;
  booked_fee_wei: string;
  final_fee_wei: string;
  difference_wei: string;
  entry: ReturnType<typeof printable>;
  /** The flags the run needs besides, with why: refused without them. */
  needs: string[];
}

/** What treasury:settle-fee did. */
export interface OperatorFeeSettled extends FeeAttempt {
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

  /** The rows FEES_NOT_FINAL_SQL counts, of one network or all, oldest booked first, `limit` of them. */
  async notFinal(network: NetworkName | undefined, limit: number): Promise<FeesNotFinalPage> {
    const rows: Array<Omit<FeeNotFinal, 'currency' | 'source'> & { total: number }> =
      await this.dataSource.query(
        `SELECT r.network, r.tx_hash, ${FEE_NOT_FINAL_REASON} AS reason,
                (SELECT l.account FROM ledger_entries e JOIN ledger_lines l ON l.entry_id = e.id
                  WHERE e.reference = 'network_fee:' || r.network || ':' || r.tx_hash
                    AND l.amount < 0
                  LIMIT 1) AS payer_account,
                x.payout_id, x.sweep_id, x.sweep_kind, x.sweep_step,
                r.fee_base_units::text AS fee_wei, r.block_number::text AS block_number,
                r.succeeded, r.booked_at, r.checks, r.operator_since,
                count(*) OVER ()::int AS total
           FROM network_fee_receipts r, LATERAL (${FEE_ATTEMPT_SQL}) x
          WHERE ${FEE_NOT_FINAL_WHERE} AND ($1::text IS NULL OR r.network = $1)
          ORDER BY r.booked_at, r.network, r.tx_hash
          LIMIT $2`,
        [network ?? null, limit],
      );
    return {
      rows: rows.map((row) => ({
        network: row.network,
        tx_hash: row.tx_hash,
        reason: row.reason,
        source: row.payer_account?.split(':')[0] ?? null,
        payer_account: row.payer_account,
        payout_id: row.payout_id,
        sweep_id: row.sweep_id,
        sweep_kind: row.sweep_kind,
        sweep_step: row.sweep_step,
        currency: NATIVE_COINS[row.network as NetworkName]?.symbol ?? '',
        fee_wei: row.fee_wei,
        block_number: row.block_number,
        succeeded: row.succeeded,
        booked_at: row.booked_at,
        checks: row.checks,
        operator_since: row.operator_since,
      })),
      more: rows.length ? rows[0].total - rows.length : 0,
    };
  }

  /**
   * The operator's final fee, in one transaction with the row locked: the difference from the
   * booked fee posted once, the row marked final with who and why. Refused, nothing written: an
   * unknown or final row, one the pass may still decide, books that disagree with the row; a
   * batch sweep's transaction without sweepAmountsChecked, a fee above LARGE_FACTOR × the booked
   * one without confirmLarge. With dryRun, the same reads and what would be posted, nothing written.
   */
  async settle(input: OperatorFeeInput): Promise<OperatorFeeSettled | OperatorFeePreview> {
    const outcome = await this.settleLocked(input);
    // Logged once committed (review of treasury:settle-fee, L5): a warning, so the CLI's stderr
    // shows it too.
    if (!('dry_run' in outcome)) this.logger.warn(outcome, 'Fee made final by an operator');
    return outcome;
  }

  private settleLocked(input: OperatorFeeInput): Promise<OperatorFeeSettled | OperatorFeePreview> {
    const { network, txHash, feeWei, by, reason } = input;
    if (feeWei < 0n) throw new TreasuryCommandError('A network fee cannot be negative.');
    const coin = NATIVE_COINS[network];
    const named = `the ${network} fee of ${txHash}`;
    return this.dataSource.transaction(async (manager) => {
      const [row]: Array<Record<string, unknown> & { fee: string; listed: boolean }> =
        await manager.query(
          `SELECT network, tx_hash, ${FEE_NOT_FINAL_REASON} AS reason,
                  fee_base_units::text AS fee, block_number::text AS block_number, block_hash,
                  succeeded, booked_at, checks, operator_since, final_at,
                  ${FEE_NOT_FINAL_WHERE} AS listed
             FROM network_fee_receipts WHERE network = $1 AND tx_hash = $2
              FOR UPDATE`,
          [network, txHash],
        );
      if (!row) {
        throw new TreasuryCommandError(
          `No fee of ${network} transaction ${txHash} is recorded (network_fee_receipts): ` +
            'nothing settled. treasury:fees lists the fees waiting for an operator.',
        );
      }
      if (row.final_at instanceof Date) {
        throw new TreasuryCommandError(
          `${capital(named)} is final already (since ${row.final_at.toISOString()}): nothing posted.`,
        );
      }
      if (!row.listed) {
        // The pass decides it from the chain itself within its checks: an operator's guess must
        // not pre-empt a positive proof. An overdue row (listed) may still be proved by the pass
        // later; the operator's settlement takes it first, and the pass never reads it again.
        throw new TreasuryCommandError(
          `${capital(named)} is still checked by the pass (${String(row.checks)} of ` +
            `${OVERDUE_CHECKS} checks, not left for an operator): nothing posted.`,
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
      const attempt = await feeAttempt(manager, network, txHash);
      const needs = flagsNeeded(input, named, booked, attempt);
      const difference = feeWei - booked;
      const entry =
        difference === 0n
          ? null
          : await adjustmentEntry(manager, network, txHash, difference, 'network_fee_operator');
      if (difference !== 0n && !entry) {
        throw new TreasuryCommandError(
          `${capital(named)} has no entry network_fee:${network}:${txHash}: nothing posted.`,
        );
      }
      const amounts = {
        currency: coin.symbol,
        booked_fee_wei: booked.toString(),
        final_fee_wei: feeWei.toString(),
        difference_wei: difference.toString(),
      };
      if (input.dryRun) {
        return {
          dry_run: true,
          row: {
            network: row.network,
            tx_hash: row.tx_hash,
            reason: row.reason,
            fee_wei: row.fee,
            block_number: row.block_number,
            block_hash: row.block_hash,
            succeeded: row.succeeded,
            booked_at: row.booked_at,
            checks: row.checks,
            operator_since: row.operator_since,
          },
          ...attempt,
          ...amounts,
          entry: printable(entry),
          needs,
        };
      }
      if (needs.length) throw new TreasuryCommandError(`${needs.join(' ')} Nothing posted.`);
      if (entry && !(await this.ledger.post(manager, entry))) {
        // Rolled back: marked final without this difference, the books would be off by it.
        throw new TreasuryCommandError(
          `An operator's correction of ${named} was posted already (${entry.reference}): ` +
            'nothing posted, the row left as it is.',
        );
      }
      const [[updated]]: [Array<{ final_at: Date }>, number] = await manager.query(
        `UPDATE network_fee_receipts
            SET fee_base_units = $3, final_at = now(), settled_by = $4, settled_reason = $5
          WHERE network = $1 AND tx_hash = $2
          RETURNING final_at`,
        [network, txHash, feeWei.toString(), by, reason],
      );
      return {
        network,
        tx_hash: txHash,
        ...attempt,
        ...amounts,
        reference: entry?.reference ?? null,
        final_at: updated.final_at,
        by,
        reason,
      };
    });
  }
}

/** Each flag the settlement needs and is not given: why, and what the operator must check first. */
function flagsNeeded(
  input: OperatorFeeInput,
  named: string,
  booked: bigint,
  attempt: FeeAttempt,
): string[] {
  const needs: string[] = [];
  if (isBatchSweep(attempt) && !input.sweepAmountsChecked) {
    needs.push(
      `${capital(named)} is the transaction of batch sweep ${attempt.sweep_id}: made final here, ` +
        'its amounts are never compared with the chain again (the pass does it only for fees it ' +
        `makes final itself, sweep_reorg:). On an explorer, check that the Swept events of ` +
        `${input.txHash} in its final block move, per address, what sweep ${attempt.sweep_id}'s ` +
        'Swept items booked (sweep_items), put any difference right by hand, then run again ' +
        'with --sweep-amounts-checked.',
    );
  }
  if (isLarge(booked, input.feeWei) && !input.confirmLarge) {
    needs.push(
      `A fee of ${input.feeWei} wei is more than ${LARGE_FACTOR} times the ${booked} wei booked ` +
        `for ${named}: check it is in wei (not gwei, not coins), then run again with ` +
        '--confirm-large (a correction cannot be undone).',
    );
  }
  return needs;
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
