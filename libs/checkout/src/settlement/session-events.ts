import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { EventType, EventWriter } from '@app/events';
import { formatAmount } from '@app/common';
import { SessionStatus } from '../checkout-session.entity';
import { CheckoutSessionMapper } from '../checkout-session.mapper';
import { CheckoutSessionsRepository } from '../checkout-sessions.repository';
import { SESSION_CHANGED_CHANNEL } from '../hosted-page/session-changes';

/** What happened to one transfer of a session during a change. */
export interface TransactionChange {
  transactionId: string;
  kind: 'detected' | 'confirmed' | 'reverted';
  /** The transfer's status before: null when first seen, `Reverted` when it came back. */
  previousStatus: string | null;
}

const TRANSACTION_EVENT: Record<TransactionChange['kind'], EventType> = {
  detected: 'checkout.session.payment_detected',
  confirmed: 'checkout.session.payment_confirmed',
  reverted: 'checkout.session.transaction_reverted',
};

const STATUS_EVENT: Record<SessionStatus, EventType> = {
  Pending: 'checkout.session.pending',
  Paid: 'checkout.session.paid',
  Underpaid: 'checkout.session.underpaid',
  Expired: 'checkout.session.expired',
};

interface TransactionRow {
  id: string;
  amount: string;
  created_at: Date;
  network: string;
  status: string;
  tx_hash: string;
  log_index: number;
}

/**
 * Writes a session's events in the transaction that changed it (its row lock held): first one per
 * transfer that changed, in chain order, then one for the session's new status, each carrying the
 * session as the API returns it after the change.
 */
@Injectable()
export class SessionEvents {
  constructor(
    private readonly events: EventWriter,
    private readonly sessions: CheckoutSessionsRepository,
    private readonly mapper: CheckoutSessionMapper,
  ) {}

  async record(
    manager: EntityManager,
    sessionId: string,
    transactionChanges: TransactionChange[],
    status: { previous: SessionStatus; current: SessionStatus },
  ): Promise<void> {
    if (!transactionChanges.length && status.previous === status.current) return;
    // Open checkout pages refresh at commit (see SessionChanges).
    await manager.query(`SELECT pg_notify($1, $2)`, [SESSION_CHANGED_CHANNEL, sessionId]);
    const { record, owner } = await this.sessions.findWithOwner(manager, sessionId);
    const object = this.mapper.toDto(record, owner);
    const base = {
      merchantId: record.merchant_id,
      subMerchantId: record.sub_merchant_id ?? null,
      subMerchantCode: record.sub_merchant_code ?? null,
      objectType: 'checkout.session' as const,
      objectId: record.id,
    };
    const transactions = await this.transactions(
      manager,
      transactionChanges.map((change) => change.transactionId),
    );
    for (const change of transactionChanges) {
      const transaction = transactions.get(change.transactionId);
      if (!transaction) continue;
      await this.events.record(manager, {
        ...base,
        type: TRANSACTION_EVENT[change.kind],
        previousStatus: change.previousStatus,
        data: {
          object,
          transaction: {
            amount: formatAmount(transaction.amount),
            created_at: new Date(transaction.created_at).toISOString(),
            network: transaction.network,
            status: transaction.status,
            tx_hash: transaction.tx_hash,
            log_index: transaction.log_index,
          },
        },
      });
    }
    if (status.previous !== status.current) {
      await this.events.record(manager, {
        ...base,
        type: STATUS_EVENT[status.current],
        previousStatus: status.previous,
        data: { object },
      });
    }
  }

  private async transactions(
    manager: EntityManager,
    ids: string[],
  ): Promise<Map<string, TransactionRow>> {
    if (!ids.length) return new Map();
    const rows: TransactionRow[] = await manager.query(
      `SELECT id, amount::text, created_at, network, status, tx_hash, log_index
         FROM session_transactions WHERE id = ANY($1::text[])`,
      [ids],
    );
    return new Map(rows.map((row) => [row.id, row]));
  }
}
