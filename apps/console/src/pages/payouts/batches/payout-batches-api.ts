import { ApiError, consoleRequest } from '../../../api/http';
import type { components } from '../../../api/v1-schema';
import { BatchItem, RowError, rowOfIndex } from './batch-csv';

export type PayoutBatch = components['schemas']['PayoutBatch'];
type ErrorItem = components['schemas']['ErrorItem'];

export const BATCH_ID = /^pob_[0-9A-Za-z]{22}$/;

/**
 * A batch from the console. POST /v1/payout-batches refuses console sessions (@SendsMoney), as
 * POST /v1/payouts does: a batch moves money, so the console sends it with a fresh two-factor
 * code to its own route, which creates it through the same service and idempotency path. The
 * idempotency key is made once per upload, so a double click or a retry replays the first batch.
 */
export function createPayoutBatch(
  items: readonly BatchItem[],
  twoFactorCode: string,
  idempotencyKey: string,
): Promise<PayoutBatch> {
  return consoleRequest<PayoutBatch>('POST', '/console/api/payout-batches', {
    items,
    two_factor_code: twoFactorCode,
    idempotency_key: idempotencyKey,
  });
}

/** The items a 422 batch_items_invalid refused, as CSV rows; empty for any other error. */
export function rowErrorsOf(error: unknown): RowError[] {
  if (!(error instanceof ApiError) || error.code !== 'batch_items_invalid') return [];
  const items = (error.body as { errors?: ErrorItem[] } | null)?.errors ?? [];
  return items.flatMap((item) =>
    typeof item.index === 'number'
      ? [
          {
            row: rowOfIndex(item.index),
            field: item.param ?? '',
            code: item.code,
            message: item.message,
          },
        ]
      : [],
  );
}
