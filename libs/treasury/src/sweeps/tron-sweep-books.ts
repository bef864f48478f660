import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { NATIVE_COINS } from '@app/chains';
import { fromBaseUnits, LedgerEntry, LedgerService, networkFeeEntry } from '@app/ledger';
import { depositFeeEntry } from './deposit-fee-entry';
import { settleSweptAddress } from './single-sweep-address';
import { recordSweepOutcome } from './sweep-backoff';
import { sweptEntry } from './sweep-outcomes';
import { SolidifiedStep } from './tron-sweep-chain';
import {
  TronStepRow,
  TronSweepJournalRepository,
  TronSweepRow,
} from './tron-sweep-journal.repository';

/**
 * Books a TRON sweep step from its solidified transaction info, in the transaction that marks the
 * step mined: its fee (the info's `fee`, absent = 0) out of the account that paid it, and for the
 * transfer the tokens its Transfer logs show moved, never what was asked. A sweep ends when its
 * energy is taken back (or when nothing was lent), Completed only if its transfer moved tokens.
 */
@Injectable()
export class TronSweepBooks {
  private readonly logger = new Logger(TronSweepBooks.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly journal: TronSweepJournalRepository,
    private readonly ledger: LedgerService,
  ) {}

  /** False when another pass booked it first (the step is no longer live). */
  async settle(sweep: TronSweepRow, step: TronStepRow, mined: SolidifiedStep): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const locked = await this.journal.lockLive(manager, sweep.id);
      if (!locked) return false;
      const [current]: Array<{ status: string }> = await manager.query(
        `SELECT status FROM sweep_attempts WHERE id = $1`,
        [step.id],
      );
      if (current.status !== 'Signed' && current.status !== 'Broadcast') return false;
      await this.journal.setStatus(manager, step.id, 'Mined');
      await this.bookFee(manager, locked, step, mined);
      if (step.step === 'transfer') await this.settleTransfer(manager, locked, step, mined);
      if (step.step === 'undelegate' && mined.succeeded) await this.end(manager, locked);
      if (step.step === 'activate' && !mined.succeeded) {
        await this.end(manager, locked, `The activation ${step.tx_hash} failed on chain.`, true);
      }
      this.logger.log(
        {
          sweepId: locked.id,
          step: step.step,
          txHash: step.tx_hash,
          succeeded: mined.succeeded,
          result: mined.contractResult,
          feeSun: mined.feeSun.toString(),
        },
        'TRON sweep step mined',
      );
      return true;
    });
  }

  /** Ends a live sweep with nothing (more) lent: Completed if its transfer moved tokens. */
  async finish(sweep: TronSweepRow, reason?: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const locked = await this.journal.lockLive(manager, sweep.id);
      if (!locked) return false;
      await this.end(manager, locked, reason);
      return true;
    });
  }

  private async end(
    manager: EntityManager,
    sweep: TronSweepRow,
    reason?: string,
    activationFailed = false,
  ): Promise<void> {
    if (sweep.item_status === 'Pending') {
      await manager.query(`UPDATE sweep_items SET status = 'Skipped' WHERE sweep_id = $1`, [
        sweep.id,
      ]);
    }
    const completed = sweep.item_status === 'Swept';
    // Ended: its energy back, or nothing lent. Not swept, as the chain proves it (its transfer
    // mined and refused or out of energy, its activation failed): the address backs off before
    // it is planned again. A sweep that ended on a read (a zero balance from a lagging backend,
    // energy short) proves nothing about the address and counts nothing.
    const [{ proven }]: Array<{ proven: boolean }> = await manager.query(
      `SELECT EXISTS (SELECT 1 FROM sweep_attempts
                       WHERE sweep_id = $1 AND step = 'transfer' AND status = 'Mined') AS proven`,
      [sweep.id],
    );
    await recordSweepOutcome(
      manager,
      sweep,
      completed ? [sweep.address] : [],
      completed || !(proven || activationFailed) ? [] : [sweep.address],
    );
    const [{ error_reason: previous }]: Array<{ error_reason: string | null }> =
      await manager.query(`SELECT error_reason FROM sweeps WHERE id = $1`, [sweep.id]);
    await manager.query(
      `UPDATE sweeps SET status = $2, error_reason = $3, completed_at = now(), updated_at = now()
        WHERE id = $1`,
      [
        sweep.id,
        completed ? 'Completed' : 'Failed',
        completed ? null : (previous ?? reason ?? 'Nothing was swept.'),
      ],
    );
    this.logger.log({ sweepId: sweep.id, completed }, 'TRON sweep ended');
  }

  private async bookFee(
    manager: EntityManager,
    sweep: TronSweepRow,
    step: TronStepRow,
    mined: SolidifiedStep,
  ): Promise<void> {
    if (mined.feeSun === 0n) return;
    const coin = NATIVE_COINS.TRON;
    if (step.step !== 'transfer') {
      await this.ledger.post(
        manager,
        networkFeeEntry({
          network: sweep.network,
          txHash: step.tx_hash,
          feeBaseUnits: mined.feeSun,
          payer: 'staking',
          coin,
        }),
      );
      return;
    }
    // The deposit address paid: TRX someone sent it (ours never send it any), burnt for a
    // bandwidth or energy shortfall. Out of the deposit addresses' TRX, which reconciliation
    // then shows as a difference to look into: it should never happen.
    this.logger.error(
      { sweepId: sweep.id, txHash: step.tx_hash, feeSun: mined.feeSun.toString() },
      'A TRON sweep transfer burnt TRX of its deposit address',
    );
    await this.ledger.post(
      manager,
      depositFeeEntry({
        network: sweep.network,
        txHash: step.tx_hash,
        feeBaseUnits: mined.feeSun,
        coin,
      }),
    );
  }

  private async settleTransfer(
    manager: EntityManager,
    sweep: TronSweepRow,
    step: TronStepRow,
    mined: SolidifiedStep,
  ): Promise<void> {
    const moved = mined.succeeded
      ? mined.transfers.filter(
          (transfer) =>
            transfer.token === sweep.token_contract &&
            transfer.from === sweep.address &&
            transfer.to === sweep.destination_address,
        )
      : [];
    const entries: LedgerEntry[] = moved
      .filter((transfer) => transfer.amountBaseUnits > 0n)
      .map((transfer) =>
        sweptEntry(sweep, step.tx_hash, transfer.logIndex, transfer.amountBaseUnits),
      );
    if (entries.length) await this.ledger.postMany(manager, entries);
    const total = moved.reduce((sum, transfer) => sum + transfer.amountBaseUnits, 0n);
    const swept = mined.succeeded && total > 0n;
    await manager.query(
      `UPDATE sweep_items SET status = $2, amount = $3::numeric WHERE sweep_id = $1`,
      [
        sweep.id,
        swept ? 'Swept' : 'Failed',
        swept ? fromBaseUnits(total, sweep.token_decimals).toFixed() : null,
      ],
    );
    sweep.item_status = swept ? 'Swept' : 'Failed';
    const error = swept
      ? null
      : `The sweep transfer ${step.tx_hash} was mined in block ${mined.blockNumber} and ` +
        `failed (${mined.contractResult ?? 'FAILED'}); nothing moved. The address is swept again later.`;
    await manager.query(
      `UPDATE sweeps SET tx_hash = $2, block_number = $3, error_reason = $4, updated_at = now()
        WHERE id = $1`,
      [sweep.id, step.tx_hash, mined.blockNumber, error],
    );
    // A token that refuses the transfer (REVERT) counts toward freezing only when it evidently
    // works for others; running out of energy is ours to fix, not the address's.
    const outcome = swept ? 'swept' : mined.contractResult === 'REVERT' ? 'refused' : 'other';
    await settleSweptAddress(manager, sweep, outcome, mined.blockNumber);
  }
}
