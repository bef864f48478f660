import { setImmediate } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { EventType, EventWriter, NewEvent, PreparedEvents } from '@app/events';
import { formatAmount } from '@app/common';
import type { TransactionChange } from '@app/deposits';
import {
  PublicSessionRecord,
  SessionStatus,
  SessionTransactionRecord,
} from '../checkout-session.entity';
import { CheckoutSessionMapper, SessionOwner } from '../checkout-session.mapper';
import { SESSION_CHANGED_CHANNEL } from '../hosted-page/session-changes';

// About 5 ms of JavaScript a slice on a 2-core VM: short enough for the connection's answers to
// be read promptly, long enough that turning the event loop costs nothing.
const SESSIONS_PER_SLICE = 64;

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

/** A session's transfer as settlement reads it: what its object lists, with id and position. */
export interface SettledTransaction extends SessionTransactionRecord {
  id: string;
  log_index: number;
}

/** Sessions' events built and ready to be written. */
export interface PreparedSessionEvents {
  sessionIds: string[];
  events: PreparedEvents;
}

/** One session's change in a settlement: its transfers' changes and its status before and after. */
export interface SessionChange {
  /** The session after the change, its transfers included (all of them, in chain order). */
  session: Omit<PublicSessionRecord, 'transactions'> & { transactions: SettledTransaction[] };
  owner: SessionOwner;
  transactionChanges: TransactionChange[];
  previous: SessionStatus;
  current: SessionStatus;
}

/**
 * Writes sessions' events in the transaction that changed them (their row locks held): per
 * session, first one per transfer that changed, in chain order, then one for the session's new
 * status, each carrying the session as the API returns it after the change. The caller passes the
 * sessions as they now are (settlement has just read them under their locks), so nothing is read
 * again; a session's events share one object, which the outbox sends once. A whole block's worth
 * of sessions costs two statements, not a handful per session.
 */
@Injectable()
export class SessionEvents {
  constructor(
    private readonly events: EventWriter,
    private readonly mapper: CheckoutSessionMapper,
  ) {}

  /**
   * Builds the events of these changes without touching the database (the JavaScript half, which
   * a caller runs while PostgreSQL works on its other statements); null when none changed. The
   * event loop turns before each slice of sessions, so the answers of statements queued on the
   * connection are read, and the next statement sent, while the rest are built.
   */
  async prepare(changes: SessionChange[]): Promise<PreparedSessionEvents | null> {
    const changed = changes.filter(
      (change) => change.transactionChanges.length || change.previous !== change.current,
    );
    if (!changed.length) return null;
    const batch = this.events.batch();
    for (let start = 0; start < changed.length; start += SESSIONS_PER_SLICE) {
      await setImmediate();
      batch.add(this.eventsOf(changed.slice(start, start + SESSIONS_PER_SLICE)));
    }
    return { sessionIds: changed.map((change) => change.session.id), events: batch.finish() };
  }

  private eventsOf(changed: SessionChange[]): NewEvent[] {
    const events: NewEvent[] = [];
    for (const change of changed) {
      const record = change.session;
      const object = this.mapper.toDto(record, change.owner);
      const base = {
        merchantId: record.merchant_id,
        subMerchantId: record.sub_merchant_id ?? null,
        subMerchantCode: record.sub_merchant_code ?? null,
        objectType: 'checkout.session' as const,
        objectId: record.id,
      };
      for (const transactionChange of change.transactionChanges) {
        const transaction = record.transactions.find(
          (candidate) => candidate.id === transactionChange.transactionId,
        );
        if (!transaction) continue;
        events.push({
          ...base,
          type: TRANSACTION_EVENT[transactionChange.kind],
          previousStatus: transactionChange.previousStatus,
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
      if (change.previous !== change.current) {
        events.push({
          ...base,
          type: STATUS_EVENT[change.current],
          previousStatus: change.previous,
          data: { object },
        });
      }
    }
    return events;
  }

  /** Writes prepared events in the caller's transaction: two statements. */
  async write(manager: EntityManager, prepared: PreparedSessionEvents | null): Promise<void> {
    if (!prepared) return;
    // Open checkout pages refresh at commit (see SessionChanges).
    await manager.query(`SELECT pg_notify($1, id) FROM unnest($2::text[]) AS id`, [
      SESSION_CHANGED_CHANNEL,
      prepared.sessionIds,
    ]);
    await this.events.write(manager, prepared.events);
  }
}
