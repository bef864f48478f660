import { Injectable, Logger } from '@nestjs/common';
import { getAddress, id } from 'ethers';
import { DataSource, EntityManager } from 'typeorm';
import { ChainError, NATIVE_COINS, NetworkName } from '@app/chains';
import {
  fromBaseUnits,
  LedgerAccounts,
  LedgerEntry,
  LedgerService,
  networkFeeEntry,
} from '@app/ledger';
import { depositFeeEntry } from './deposit-fee-entry';
import { SweepReceipt } from './evm-sweep-chain';
import { pairedTransfer } from './evm-top-up-pairing';
import {
  EvmTopUpJournalRepository,
  TopUpAttemptRow,
  TopUpSweepRow,
} from './evm-top-up-journal.repository';
import { settleSweptAddress } from './single-sweep-address';
import { recordSweepOutcome } from './sweep-backoff';
import { sweptEntry } from './sweep-outcomes';

const TRANSFER_TOPIC = id('Transfer(address,address,uint256)');

/**
 * Books a gas top-up sweep from its confirmed receipts, each in the transaction that marks its
 * attempt mined. The top-up: the sweeper's native coin moves to the deposit addresses' native
 * account (`sweeper` -> `deposits:N:COIN`), and the sweeper's gas is an expense. The transfer:
 * its gas is paid from that native coin (`deposits:N:COIN` -> `network_fees`), and the tokens its
 * Transfer log shows moved go deposits -> hot wallet or treasury. What is left of the top-up on
 * the address (gas limit and fee cap above what was used) stays in `deposits:N:COIN`, on chain.
 */
@Injectable()
export class EvmTopUpBooks {
  private readonly logger = new Logger(EvmTopUpBooks.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly journal: EvmTopUpJournalRepository,
    private readonly ledger: LedgerService,
  ) {}

  /** False when another pass booked it first. */
  async topUpMined(
    sweep: TopUpSweepRow,
    attempt: TopUpAttemptRow,
    receipt: SweepReceipt,
    valueWei: bigint,
  ): Promise<boolean> {
    const feeWei = feeOf(sweep, attempt, receipt);
    return this.dataSource.transaction(async (manager) => {
      if (!(await this.lockAttempt(manager, sweep, attempt))) return false;
      // The nonce is this top-up's: its other versions (replacements, a cancel) never can be,
      // and only the transfer signed at its fees is paid for (evm-top-up-pairing.ts).
      const transfer = pairedTransfer(await this.journal.attempts(sweep.id, manager), attempt);
      await manager.query(
        `UPDATE sweep_attempts SET status = 'Superseded', updated_at = now()
          WHERE sweep_id = $1 AND id NOT IN ($2, $3) AND status <> 'Superseded'`,
        [sweep.id, attempt.id, transfer.id],
      );
      const coin = NATIVE_COINS[sweep.network as NetworkName];
      const entries: LedgerEntry[] = [
        networkFeeEntry({
          network: sweep.network,
          txHash: attempt.tx_hash,
          feeBaseUnits: feeWei,
          payer: 'sweeper',
          coin,
          block: { number: receipt.blockNumber, hash: receipt.blockHash },
          succeeded: receipt.succeeded,
        }),
      ];
      if (receipt.succeeded && valueWei > 0n) {
        const amount = fromBaseUnits(valueWei, coin.decimals);
        const line = { currency: coin.symbol, network: sweep.network };
        entries.push({
          reference: `sweep_top_up:${sweep.network}:${attempt.tx_hash}`,
          kind: 'sweep_top_up',
          lines: [
            { account: LedgerAccounts.deposits(sweep.network, coin.symbol), amount, ...line },
            {
              account: LedgerAccounts.sweeper(sweep.network, coin.symbol),
              amount: amount.negated(),
              ...line,
            },
          ],
        });
      }
      await this.ledger.postMany(manager, entries);
      if (!receipt.succeeded) {
        await manager.query(`UPDATE sweep_items SET status = 'Failed' WHERE sweep_id = $1`, [
          sweep.id,
        ]);
        await recordSweepOutcome(manager, sweep, [], [sweep.address]);
        await manager.query(
          `UPDATE sweep_attempts SET status = 'Superseded', updated_at = now()
            WHERE sweep_id = $1 AND step = 'transfer'`,
          [sweep.id],
        );
        await this.end(manager, sweep, 'Failed', null, {
          reason: `The gas top-up ${attempt.tx_hash} reverted; nothing was sent.`,
        });
      }
      return true;
    });
  }

  async transferMined(
    sweep: TopUpSweepRow,
    attempt: TopUpAttemptRow,
    receipt: SweepReceipt,
  ): Promise<boolean> {
    const feeWei = feeOf(sweep, attempt, receipt);
    return this.dataSource.transaction(async (manager) => {
      if (!(await this.lockAttempt(manager, sweep, attempt))) return false;
      const coin = NATIVE_COINS[sweep.network as NetworkName];
      await this.ledger.post(
        manager,
        depositFeeEntry({
          network: sweep.network,
          txHash: attempt.tx_hash,
          feeBaseUnits: feeWei,
          coin,
          block: { number: receipt.blockNumber, hash: receipt.blockHash },
          succeeded: receipt.succeeded,
        }),
      );
      const moved = receipt.succeeded ? this.movedBy(sweep, receipt) : [];
      const entries = moved
        .filter((log) => log.amount > 0n)
        .map((log) => sweptEntry(sweep, attempt.tx_hash, log.index, log.amount));
      if (entries.length) await this.ledger.postMany(manager, entries);
      const total = moved.reduce((sum, log) => sum + log.amount, 0n);
      const swept = receipt.succeeded && total > 0n;
      await manager.query(
        `UPDATE sweep_items SET status = $2, amount = $3::numeric WHERE sweep_id = $1`,
        [
          sweep.id,
          swept ? 'Swept' : 'Failed',
          swept ? fromBaseUnits(total, sweep.token_decimals).toFixed() : null,
        ],
      );
      // A reverted transfer (the token refused: a blacklist, a pause) counts toward freezing
      // only when the token evidently works for others; the sweep's block is past every read.
      const outcome = swept ? 'swept' : receipt.succeeded ? 'other' : 'refused';
      await settleSweptAddress(manager, sweep, outcome, receipt.blockNumber);
      await recordSweepOutcome(
        manager,
        sweep,
        swept ? [sweep.address] : [],
        swept ? [] : [sweep.address],
      );
      await this.end(manager, sweep, swept ? 'Completed' : 'Failed', attempt.tx_hash, {
        block: receipt.blockNumber,
        reason: swept
          ? null
          : `The sweep transfer ${attempt.tx_hash} was mined in block ${receipt.blockNumber} ` +
            'and moved nothing; the address is swept again later.',
      });
      return true;
    });
  }

  /** Transfer logs of the sweep's token from its address to its destination. */
  private movedBy(sweep: TopUpSweepRow, receipt: SweepReceipt) {
    const word = (address: string) =>
      `0x${getAddress(address).slice(2).toLowerCase().padStart(64, '0')}`;
    return receipt.logs
      .filter(
        (log) =>
          getAddress(log.address) === getAddress(sweep.token_contract) &&
          log.topics.length === 3 &&
          log.topics[0] === TRANSFER_TOPIC &&
          log.topics[1].toLowerCase() === word(sweep.address) &&
          log.topics[2].toLowerCase() === word(sweep.destination_address),
      )
      .map((log) => ({ index: log.index, amount: BigInt(log.data) }));
  }

  private async lockAttempt(
    manager: EntityManager,
    sweep: TopUpSweepRow,
    attempt: TopUpAttemptRow,
  ): Promise<boolean> {
    if (!(await this.journal.lockLive(manager, sweep.id))) return false;
    const [current]: Array<{ status: string }> = await manager.query(
      `SELECT status FROM sweep_attempts WHERE id = $1`,
      [attempt.id],
    );
    if (current.status === 'Mined' || current.status === 'Superseded') return false;
    await this.journal.markMined(manager, attempt.id);
    return true;
  }

  private async end(
    manager: EntityManager,
    sweep: TopUpSweepRow,
    status: 'Completed' | 'Failed',
    txHash: string | null,
    details: { block?: number; reason: string | null },
  ): Promise<void> {
    await manager.query(
      `UPDATE sweeps SET status = $2, tx_hash = $3, block_number = $4, error_reason = $5,
                         completed_at = now(), updated_at = now()
        WHERE id = $1`,
      [sweep.id, status, txHash, details.block ?? null, details.reason],
    );
    this.logger.log({ sweepId: sweep.id, status, txHash }, 'Gas top-up sweep ended');
  }
}

/**
 * A receipt's fee, never guessed nor dropped: a receipt without it (no effectiveGasPrice yet) is a
 * transient answer, read again next pass, and nothing is marked mined meanwhile.
 */
function feeOf(sweep: TopUpSweepRow, attempt: TopUpAttemptRow, receipt: SweepReceipt): bigint {
  if (receipt.feeWei === null) {
    throw new ChainError(
      'transient',
      `The receipt of ${attempt.tx_hash} (sweep ${sweep.id}) carries no fee; it is read again later`,
      sweep.network,
    );
  }
  return receipt.feeWei;
}
