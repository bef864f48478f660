import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ChainError, finalityBlocksOf, NetworkName, NetworkRegistry } from '@app/chains';
import { PerNetwork } from '@app/chains/networks/per-network';
import { whileAdvisoryLocked } from '@app/database';
import { LedgerService } from '@app/ledger';
import { mapConcurrently } from '../reconciliation/balance-reads';
import { FeeSettlement } from './fee-settlement';
import { FinalReceipts } from './final-receipts';
import { LinkedHeaders } from './linked-headers';

/**
 * A pass reads a network's due fees in batches of this many (one head read per batch), keyset
 * after the last one read, until none is due or its time budget runs out.
 */
const BATCH = 200;
/** Receipt reads in flight per network: a busy network books fees faster than one at a time. */
const PARALLEL_READS = 8;
/** A pass called without a budget (the CLI, the soak's drain) gives up reading after this. */
const DEFAULT_BUDGET_MS = 60_000;
/**
 * Reads failing in a row (timeouts, a node down; not a refused hash) after which a pass stops
 * reading the network: a hung node must not hold the pass, and the reconciliation queue behind
 * it, for a timeout per fee (review r9d, N2). The rows not read keep their turn.
 */
const FAILED_READS_TO_STOP = 3;
/**
 * An undecided read (receipt missing or off the node's chain, no fee, an RPC error) asks again
 * after this, doubled per check up to RETRY_CAP_SECONDS: a reorg's transaction mined again or a
 * lagging node is asked again within the next passes (the first waits are shorter than the
 * worker's interval, and the soak drain's loop is not held up), while a transaction dropped for
 * good or a pruned receipt is soon read about once a day and never holds newer fees back.
 */
const RETRY_SECONDS = 30;
const RETRY_CAP_SECONDS = 86_400;
/** A fee left for an operator is read again (and its error logged) once a day. */
const OPERATOR_RECHECK_SECONDS = 86_400;
/**
 * Undecided checks after which a fee is overdue: at least 30 s × (2^7 − 1), over an hour, of
 * reads past its finality depth (a shallow read counts none), far beyond a reorg or a lagging
 * node. Each later check logs an error, and FEES_NOT_FINAL_SQL counts it.
 */
export const OVERDUE_CHECKS = 8;

/**
 * A network_fee_receipts row the pass cannot make final (its columns unqualified): one definition
 * for the gauge, treasury:fees and treasury:settle-fee, so what alerts is what an operator can list
 * and settle (review r9b follow-up, L4).
 */
export const FEE_NOT_FINAL_WHERE = `final_at IS NULL AND (operator_since IS NOT NULL OR checks >= ${OVERDUE_CHECKS})`;
/** Such a row's `reason`: the gauge's label. */
export const FEE_NOT_FINAL_REASON = `CASE WHEN operator_since IS NULL THEN 'overdue' ELSE 'operator' END`;

/**
 * Fees not final per network and reason: `operator` (left for an operator) or `overdue` (still
 * undecided after OVERDUE_CHECKS checks: a transaction dropped for good, a receipt no node
 * serves, a forgotten chain). The gauge payments_treasury_fees_not_final (docs/operations.md).
 */
export const FEES_NOT_FINAL_SQL = `
  SELECT network, ${FEE_NOT_FINAL_REASON} AS reason, count(*)::int AS count
    FROM network_fee_receipts
   WHERE ${FEE_NOT_FINAL_WHERE}
   GROUP BY 1, 2`;

type FeeCounts = Omit<FeeFinalityReport, 'ended'>;

export interface FinalizeOptions {
  /** Reading stops after this long (DEFAULT_BUDGET_MS); the fees not read go first next pass. */
  budgetMs?: number;
  /** Fees per batch (BATCH). */
  batch?: number;
  /** Wait for a pass of the network running elsewhere to end (true), or skip this one (false). */
  wait?: boolean;
}

interface DueRow {
  tx_hash: string;
  /** next_check_at as PostgreSQL's text: microseconds kept for the keyset (a JS Date drops them). */
  at: string;
}

/** What one pass over a network did. */
export interface FeeFinalityReport {
  /**
   * Why it ended: `done` (no fee due left), `budget` (time ran out; the rest go first next pass),
   * `node-failing` (FAILED_READS_TO_STOP reads failed in a row), `locked` (another pass of the
   * network runs, in this process or another: nothing read).
   */
  ended: 'done' | 'budget' | 'node-failing' | 'locked';
  /** Fees the final receipt confirmed as booked. */
  final: number;
  /** Fees corrected by an adjusting entry (the transaction was mined again at another price). */
  adjusted: number;
  /** Receipts missing, off the node's chain or not yet finalityBlocks deep: asked again later. */
  waiting: number;
  /** Left not final for an operator (a status flipped by a reorg, a fee that cannot be). */
  operator: number;
}

/**
 * Fees become final (docs/treasury.md): every EVM network fee is booked from the receipt seen at
 * the network's confirmations, and a reorg deeper than those can drop the transaction and mine
 * the same signed bytes again in another block, at another base fee (and gas used). Once the
 * receipt is `finalityBlocks` deep on the node's canonical chain, the booked fee is compared with
 * it and, if it differs, corrected by one adjusting entry between the same two accounts.
 *
 * Only positive proofs decide: a missing receipt, or one whose block is not the node's block at
 * that height, waits. TRON fees are recorded already final (LedgerService): never read here.
 */
@Injectable()
export class NetworkFeeFinality implements OnModuleDestroy {
  private readonly logger = new Logger(NetworkFeeFinality.name);
  private readonly receipts: PerNetwork<FinalReceipts>;
  private readonly settlement: FeeSettlement;

  constructor(
    private readonly dataSource: DataSource,
    ledger: LedgerService,
    private readonly networks: NetworkRegistry,
  ) {
    this.settlement = new FeeSettlement(dataSource, ledger);
    this.receipts = new PerNetwork((name) => new FinalReceipts(networks.get(name)));
  }

  /** The configured EVM networks with fees not yet final. */
  async networksToFinalize(): Promise<NetworkName[]> {
    const evm = this.networks.networksOfFamily('EVM').map(({ name }) => name);
    // One index probe per configured network, not a scan of every row not final (DISTINCT).
    const rows: Array<{ network: NetworkName }> = await this.dataSource.query(
      `SELECT n AS network FROM unnest($1::text[]) AS n
        WHERE EXISTS (SELECT 1 FROM network_fee_receipts
                       WHERE network = n AND final_at IS NULL)`,
      [evm],
    );
    return rows.map(({ network }) => network);
  }

  /**
   * One pass over a network's due fees, one at a time per network across workers and the CLI (an
   * advisory lock: `wait` blocks for it, else a pass already running makes this one `locked`).
   * Throws a ChainError only when the node's head cannot be read.
   */
  async finalize(name: NetworkName, options: FinalizeOptions = {}): Promise<FeeFinalityReport> {
    const { budgetMs = DEFAULT_BUDGET_MS, batch = BATCH, wait = true } = options;
    const run = await whileAdvisoryLocked(this.dataSource, `treasury.fees:${name}`, wait, () =>
      this.pass(name, Date.now() + budgetMs, batch),
    );
    const report = run.ran ? run.value : { ...emptyReport(), ended: 'locked' as const };
    if (report.ended === 'locked') {
      // Rare (the schedule's budget is half its interval): a pass never ending elsewhere would
      // show here, every interval, while no fee is read.
      this.logger.warn({ network: name }, 'Fees not read: a pass of the network runs elsewhere');
    } else if (report.adjusted || report.operator || report.ended === 'node-failing') {
      this.logger.log({ network: name, ...report }, 'Fees');
    }
    return report;
  }

  /**
   * Batches of due fees in (next_check_at, tx_hash) order, each after the last one read: a fee
   * read and put off leaves the pass's range (due by its start), and one still shallow keeps its
   * place for the next pass without being read again in this one.
   */
  private async pass(name: NetworkName, deadline: number, batch: number) {
    const depth = finalityBlocksOf(this.networks.get(name));
    const receipts = this.receipts.get(name);
    const report = emptyReport();
    const [{ started }]: Array<{ started: string }> = await this.dataSource.query(
      `SELECT now()::text AS started`,
    );
    let after: { at: string; txHash: string } | null = null;
    let failedInARow = 0;
    // `ended` stays 'done' until the budget or the node ends the pass early.
    while (report.ended === 'done') {
      // A fee whose recorded block is not deep enough yet cannot be final: not even read.
      const head = await receipts.head();
      const rows: DueRow[] = await this.dataSource.query(
        `SELECT tx_hash, next_check_at::text AS at
           FROM network_fee_receipts
          WHERE network = $1 AND final_at IS NULL AND next_check_at <= $2::timestamptz
            AND (block_number IS NULL OR block_number <= $3)
            -- The lower bound starts the index scan at the keyset (the row comparison alone is
            -- a filter: every batch would scan every due row before it again).
            AND next_check_at >= COALESCE($4::timestamptz, '-infinity')
            AND ($4::timestamptz IS NULL OR (next_check_at, tx_hash) > ($4::timestamptz, $5))
          ORDER BY next_check_at, tx_hash
          LIMIT $6`,
        [name, started, head - depth + 1, after?.at ?? null, after?.txHash ?? null, batch],
      );
      if (rows.length === 0) break;
      after = { at: rows[rows.length - 1].at, txHash: rows[rows.length - 1].tx_hash };
      const headers = receipts.batchHeaders();
      // A lane that throws (the database gone) stops the others at their next fee, and the
      // error is thrown once every lane has ended: the lock is never let go under a running lane.
      const failures: unknown[] = [];
      await mapConcurrently(rows, PARALLEL_READS, async (row) => {
        if (report.ended !== 'done' || failures.length) return;
        if (Date.now() >= deadline) {
          report.ended = 'budget';
          return;
        }
        try {
          const outcome = await this.check(name, row.tx_hash, depth, head, headers, receipts);
          if (outcome === 'failed') failedInARow += 1;
          else failedInARow = 0;
          report[outcome === 'failed' ? 'waiting' : outcome] += 1;
          if (failedInARow >= FAILED_READS_TO_STOP) report.ended = 'node-failing';
        } catch (error) {
          failures.push(error);
        }
      });
      if (failures.length) throw failures[0];
      if (rows.length < batch) break;
    }
    return report;
  }

  /**
   * One fee: read, settled when final, else its next check put off. Alone: a receipt the node
   * fails to serve (an error for an unknown hash, indexing in progress) holds only its own row.
   * `failed` when the node did not answer (a transient error: timeout, node down).
   */
  private async check(
    network: NetworkName,
    txHash: string,
    depth: number,
    head: number,
    headers: LinkedHeaders,
    receipts: FinalReceipts,
  ): Promise<keyof FeeCounts | 'failed'> {
    let outcome: keyof FeeCounts | 'failed';
    // Final, but no URL answered the receipt's fee (an OP-stack l1Fee): its own alert text.
    let noFee = false;
    try {
      const read = await receipts.read(txHash, depth, head, headers);
      // On the node's chain and getting deeper: due again next pass, skipped until deep enough.
      if (read.state === 'shallow') {
        // Not a block far above the head (a backend on another chain): the row would be skipped
        // unread, its checks never counted, until the chain got there.
        if (read.blockNumber <= head + depth)
          await this.recordBlock(network, txHash, read.blockNumber);
        return 'waiting';
      }
      outcome =
        read.state === 'final' ? await this.settlement.settle(network, txHash, read) : 'waiting';
      noFee = read.state === 'final' && read.feeWei === null;
    } catch (error) {
      if (error instanceof ChainError) {
        this.logger.warn(
          { network, txHash, error: error.message },
          'A fee receipt not read: asked again later',
        );
        outcome = error.transient ? 'failed' : 'waiting';
      } else {
        // Not the node: the settlement's own statements (review r9d, N3). Put off all the same,
        // so one row that cannot be settled never holds the others back.
        this.logger.error(
          { network, txHash, error: error instanceof Error ? error.message : String(error) },
          'A fee not settled: asked again later',
        );
        outcome = 'waiting';
      }
    }
    if (outcome !== 'final' && outcome !== 'adjusted') {
      await this.later(network, txHash, outcome, noFee);
    }
    return outcome;
  }

  /**
   * A payout's fee is booked without its block (the payout path knows none): the block its
   * receipt is in now lets the passes skip it until that block can be final. A hint only: the
   * read at finality decides, whatever block it is then.
   */
  private async recordBlock(network: NetworkName, txHash: string, blockNumber: number) {
    await this.dataSource.query(
      `UPDATE network_fee_receipts SET block_number = $3
        WHERE network = $1 AND tx_hash = $2 AND final_at IS NULL AND block_number IS NULL`,
      [network, txHash, blockNumber],
    );
  }

  /**
   * Puts off a fee's next check: backing off while undecided, a day when left for an operator. A
   * read the node failed counts as a check too (review r11, 2: a node failing one hash for good
   * must reach OVERDUE_CHECKS and alert); a pass stops after 3 in a row, so a node down for
   * hours counts a few fees, slowly (30 s doubled per check: 8 checks is about two hours).
   */
  private async later(
    network: NetworkName,
    txHash: string,
    outcome: 'waiting' | 'operator' | 'failed',
    noFee = false,
  ) {
    const [rows]: [Array<{ checks: number; booked_at: Date }>, number] =
      await this.dataSource.query(
        `UPDATE network_fee_receipts
          SET checks = checks + 1,
              next_check_at = now() + make_interval(secs => CASE WHEN $3
                THEN $4 ELSE least($5 * power(2, least(checks, 20)), $6) END),
              operator_since = CASE WHEN $3 THEN COALESCE(operator_since, now()) END
        WHERE network = $1 AND tx_hash = $2 AND final_at IS NULL
        RETURNING checks, booked_at`,
        [
          network,
          txHash,
          outcome === 'operator',
          OPERATOR_RECHECK_SECONDS,
          RETRY_SECONDS,
          RETRY_CAP_SECONDS,
        ],
      );
    const [row] = rows;
    if (outcome !== 'operator' && row && row.checks >= OVERDUE_CHECKS) {
      // Long past finality and still undecided: most likely dropped for good by a reorg (its
      // nonce taken), so a payout may be Completed with nothing sent. Never decided alone. Read
      // final but without its fee, it is no drop: a node that leaves out l1Fee (review r9b, L3).
      this.logger.error(
        { network, txHash, checks: row.checks, bookedAt: row.booked_at },
        noFee
          ? 'A fee still not final long past its finality depth: its receipt is final, but no ' +
              'RPC URL answers its fee (an OP-stack l1Fee; docs/operations.md, "Receipts ' +
              'without a fee")'
          : 'A fee still not final long past its finality depth: its transaction may be dropped for good',
      );
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.receipts.closeAll();
  }
}

function emptyReport(): FeeFinalityReport {
  return { ended: 'done', final: 0, adjusted: 0, waiting: 0, operator: 0 };
}
