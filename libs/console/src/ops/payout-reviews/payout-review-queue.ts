import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { formatAmount } from '@app/common';

interface QueueRow {
  id: string;
  merchant_id: string;
  merchant_name: string;
  amount: string;
  fee: string;
  net_amount: string;
  currency: string;
  network: string;
  to_address: string;
  review_reason: string;
  sub_merchant_code: string | null;
  description: string | null;
  created_at: Date;
}

/** At most this many per page: the queue is worked from its oldest end. */
export const REVIEW_QUEUE_LIMIT = 200;

/**
 * The payouts waiting for an operator's decision, oldest first (the order they should be
 * decided in). The same condition PayoutReviews.approve accepts: Pending, reviewable, unreviewed.
 */
@Injectable()
export class PayoutReviewQueue {
  constructor(private readonly dataSource: DataSource) {}

  async waiting() {
    const rows: QueueRow[] = await this.dataSource.query(
      `SELECT p.id, p.merchant_id, m.name AS merchant_name, p.amount, p.fee, p.net_amount,
              p.currency, p.network, p.to_address, p.review_reason, sm.code AS sub_merchant_code,
              p.description, p.created_at
         FROM payouts p
         JOIN merchants m ON m.id = p.merchant_id
         LEFT JOIN sub_merchants sm ON sm.id = p.sub_merchant_id
        WHERE p.status = 'Pending' AND p.review_reason IS NOT NULL AND p.reviewed_at IS NULL
        ORDER BY p.created_at, p.id
        LIMIT $1`,
      [REVIEW_QUEUE_LIMIT],
    );
    return {
      data: rows.map((row) => ({
        id: row.id,
        merchant: { id: row.merchant_id, name: row.merchant_name },
        amount: formatAmount(row.amount),
        fee: formatAmount(row.fee),
        net_amount: formatAmount(row.net_amount),
        currency: row.currency,
        network: row.network,
        destination: row.to_address,
        review_reasons: [row.review_reason],
        sub_merchant_code: row.sub_merchant_code,
        description: row.description,
        created_at: row.created_at.toISOString(),
      })),
    };
  }
}
