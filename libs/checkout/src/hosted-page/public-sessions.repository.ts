import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  WatcherStatusJson,
  watcherStatusJsonSql,
} from '@app/deposits/networks-status/watcher-status.repository';

/** What the hosted page may know of a session, and nothing more (no merchant id, fees, refs). */
export interface PublicSessionRecord {
  id: string;
  status: 'Pending' | 'Paid' | 'Underpaid' | 'Expired';
  amount: string;
  amount_received: string;
  currency: string;
  network: string;
  chain_family: 'EVM' | 'TRON';
  currency_contract: string;
  pay_address: string;
  pricing_amount: string;
  pricing_currency: string;
  success_url: string | null;
  cancel_url: string | null;
  expires_at: Date;
  server_time: Date;
  merchant_name: string;
  merchant_logo_url: string | null;
  sub_merchant_name: string | null;
  sub_merchant_logo_url: string | null;
  /** The deposit watcher's last scanned block: confirmations are counted against it. */
  scanned_block: string | null;
  /** The watcher's last report on the session's network, or null if it never reported. */
  watcher: WatcherStatusJson | null;
  transactions: Array<{
    tx_hash: string;
    amount: string;
    status: 'Pending' | 'Confirmed' | 'Reverted';
    block_number: string;
  }>;
  /** A refund of the session waits for the customer's address. */
  refund_waiting: boolean;
}

@Injectable()
export class PublicSessionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async find(id: string): Promise<PublicSessionRecord | null> {
    const rows: PublicSessionRecord[] = await this.dataSource.query(
      `SELECT s.id, s.status, s.amount::text, s.amount_received::text, s.currency, s.network,
              s.chain_family, s.currency_contract, s.pay_address, s.pricing_amount::text,
              s.pricing_currency, s.success_url, s.cancel_url, s.expires_at, now() AS server_time,
              m.name AS merchant_name, m.logo_url AS merchant_logo_url,
              sm.name AS sub_merchant_name, sm.logo_url AS sub_merchant_logo_url,
              (SELECT last_scanned_block FROM chain_cursors c WHERE c.network = s.network)
                AS scanned_block,
              (SELECT ${watcherStatusJsonSql('w')} FROM watcher_status w WHERE w.network = s.network)
                AS watcher,
              COALESCE((
                SELECT json_agg(json_build_object(
                         'tx_hash', t.tx_hash, 'amount', t.amount::text, 'status', t.status,
                         'block_number', t.block_number) ORDER BY t.block_number, t.log_index)
                  FROM session_transactions t WHERE t.session_id = s.id), '[]'::json)
                AS transactions,
              EXISTS (
                SELECT 1 FROM refunds r
                 WHERE r.session_id = s.id AND r.status = 'requires_destination'
                   -- Paid after the refund was requested: the merchant confirms it first.
                   AND NOT (s.status = 'Paid' AND s.paid_at > r.created_at)) AS refund_waiting
         FROM checkout_sessions s
         JOIN merchants m ON m.id = s.merchant_id
         LEFT JOIN sub_merchants sm ON sm.id = s.sub_merchant_id
        WHERE s.id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }
}
