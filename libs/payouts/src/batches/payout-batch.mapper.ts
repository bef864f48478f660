import Decimal from 'decimal.js';
import { formatAmount } from '@app/common';
import { formatOffsetTimestamp } from '../payout.mapper';
import { PayoutRecord } from '../payout.types';
import { PayoutBatchDto, PayoutBatchStatus, PayoutBatchTotalDto } from './dto/payout-batch.dto';
import { PayoutBatchRecord, PayoutBatchTotalRow } from './payout-batches.repository';

/** A just-created batch's totals, from its payouts in memory (what totals() would read). */
export function totalsOf(batchId: string, rows: PayoutRecord[]): PayoutBatchTotalRow[] {
  const totals = new Map<string, PayoutBatchTotalRow & { sums: Decimal[] }>();
  for (const row of rows) {
    const key = `${row.status}:${row.network}:${row.currency}`;
    let total = totals.get(key);
    if (!total) {
      total = {
        batch_id: batchId,
        status: row.status,
        currency: row.currency,
        network: row.network,
        count: 0,
        amount: '0',
        fee: '0',
        net_amount: '0',
        sums: [new Decimal(0), new Decimal(0), new Decimal(0)],
      };
      totals.set(key, total);
    }
    total.count += 1;
    total.sums = [
      total.sums[0].plus(row.amount),
      total.sums[1].plus(row.fee),
      total.sums[2].plus(row.net_amount),
    ];
  }
  return [...totals.values()]
    .sort(
      (a, b) =>
        a.network.localeCompare(b.network) ||
        a.currency.localeCompare(b.currency) ||
        a.status.localeCompare(b.status),
    )
    .map(({ sums, ...total }) => ({
      ...total,
      amount: sums[0].toFixed(),
      fee: sums[1].toFixed(),
      net_amount: sums[2].toFixed(),
    }));
}

export function toBatchDto(row: PayoutBatchRecord, totals: PayoutBatchTotalRow[]): PayoutBatchDto {
  const counts: PayoutBatchDto['counts'] = {
    Pending: 0,
    Processing: 0,
    Completed: 0,
    Failed: 0,
    Rejected: 0,
  };
  for (const total of totals) counts[total.status] += total.count;
  const open = counts.Pending + counts.Processing;
  const status: PayoutBatchStatus =
    counts.Pending === row.item_count ? 'Pending' : open === 0 ? 'Finished' : 'Processing';
  return {
    id: row.id,
    status,
    livemode: row.livemode,
    item_count: row.item_count,
    counts,
    totals: totals.map((total): PayoutBatchTotalDto => ({
      status: total.status,
      currency: total.currency,
      network: total.network,
      count: total.count,
      amount: formatAmount(total.amount),
      fee: formatAmount(total.fee),
      net_amount: formatAmount(total.net_amount),
    })),
    sub_merchant_code: row.sub_merchant_code,
    created_at: formatOffsetTimestamp(row.created_at),
    finished_at: row.finished_at === null ? null : formatOffsetTimestamp(row.finished_at),
  };
}
