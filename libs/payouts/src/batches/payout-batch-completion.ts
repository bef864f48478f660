import { EntityManager } from 'typeorm';
import { EventWriter } from '@app/events';
import { FINAL_PAYOUT_STATUSES, PayoutRecord, PayoutStatus } from '../payout.types';
import { toBatchDto } from './payout-batch.mapper';
import { batchTotals, PayoutBatchRecord } from './payout-batches.repository';

/**
 * `payout_batch.completed`, exactly once: called in the transaction of every payout status change
 * (PayoutEvents.statusChanged, the one place final statuses are reported), it acts when the
 * change made an item of a batch final.
 *
 * The batch's row lock serialises the items' final changes: each transaction asks whether an
 * item is still open only once it holds the lock, in a statement of its own, so (READ COMMITTED)
 * it sees every final change committed before it. Of two last items finishing at once, the
 * second to get the lock sees the first's change and sets finished_at; the first saw the
 * second's item still open. `finished_at IS NULL` makes a later call (none should come) a no-op.
 * Lock order: the payout's row, the balance rows of its posting, then the batch's row, in every
 * such transaction; nothing locks a batch's row first.
 */
export async function completeBatchIfFinished(
  manager: EntityManager,
  events: EventWriter,
  payout: Pick<PayoutRecord, 'batch_id' | 'status'>,
  previousStatus: PayoutStatus | null,
): Promise<boolean> {
  if (!payout.batch_id || !FINAL_PAYOUT_STATUSES.includes(payout.status)) return false;
  const batchId = payout.batch_id;
  await manager.query(`SELECT 1 FROM payout_batches WHERE id = $1 FOR UPDATE`, [batchId]);
  // An UPDATE answers [rows, count] through TypeORM's query().
  const [finished]: [PayoutBatchRecord[], number] = await manager.query(
    `UPDATE payout_batches b SET finished_at = now()
      WHERE b.id = $1 AND b.finished_at IS NULL
        AND NOT EXISTS (SELECT 1 FROM payouts p
                         WHERE p.batch_id = $1 AND p.status IN ('Pending', 'Processing'))
      RETURNING b.*, (SELECT code FROM sub_merchants WHERE id = b.sub_merchant_id)
                     AS sub_merchant_code`,
    [batchId],
  );
  if (!finished.length) return false;
  const batch = finished[0];
  const object = toBatchDto(batch, await batchTotals(manager, [batchId]));
  await events.record(manager, {
    type: 'payout_batch.completed',
    merchantId: batch.merchant_id,
    subMerchantId: batch.sub_merchant_id,
    subMerchantCode: batch.sub_merchant_code,
    objectType: 'payout_batch',
    objectId: batch.id,
    // Every other item was final already: the batch was Pending only if this was its one item.
    previousStatus:
      batch.item_count === 1 && previousStatus === 'Pending' ? 'Pending' : 'Processing',
    data: { object },
  });
  return true;
}
