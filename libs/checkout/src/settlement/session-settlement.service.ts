import { Inject, Injectable } from '@nestjs/common';
import Decimal from 'decimal.js';
import { EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/common';
import type { DepositSettlement, TransactionChange } from '@app/deposits';
import { LedgerAccounts, LedgerEntry, LedgerService } from '@app/ledger';
import {
  CheckoutSessionRecord,
  PUBLIC_SESSION_COLUMNS,
  SessionStatus,
} from '../checkout-session.entity';
import { computeFee } from './fee-rule';
import { SessionChange, SessionEvents, SettledTransaction } from './session-events';
import { sessionStatusFor } from './session-status';

/** A session under its row lock, with what its public object needs (owner, sub-merchant). */
interface LockedSession extends Omit<CheckoutSessionRecord, 'transactions'> {
  sub_merchant_id: string | null;
  expires_at: Date;
  ledger_version: number;
  /** The merchant's name and logo (the owner the object presents). */
  owner_name: string;
  owner_logo_url: string | null;
  now: Date;
}

/**
 * What settling needs of a session: its public object's columns, its fee rule and its ledger
 * version (not `s.*`: a block's 900 sessions would decode two more timestamps each, unused).
 */
const LOCKED_SESSION_COLUMNS = [
  ...PUBLIC_SESSION_COLUMNS,
  'fee_percent',
  'fee_fixed',
  'ledger_version',
]
  .map((column) => `s.${column}`)
  .join(', ');

/** A session's transfers: the confirmed total (exact, summed by PostgreSQL) and every transfer. */
interface SessionTransfers {
  session_id: string;
  confirmed: string | null;
  transactions: SettledTransaction[];
}

interface SettlementOutcome {
  sessionId: string;
  previousStatus: SessionStatus;
  status: SessionStatus;
  received: Decimal;
  fee: Decimal;
  net: Decimal;
  ledgerVersion: number;
  /** The ledger entry that brings the credit in line, if anything changed. */
  entry?: LedgerEntry;
  /** Whether the session row needs an update. */
  changed: boolean;
}

/** A session whose confirmed total just went down (a reorg took a payment back). */
export interface ReversedPayment {
  sessionId: string;
  /** What the session has received now. */
  received: Decimal;
}

/**
 * Told, in the settling transaction (the sessions' row locks held), of the sessions whose
 * received amount went down, so what was promised against it can be taken back. Implemented by
 * libs/refunds, which depends on checkout, not the other way round.
 */
export interface ReversedPaymentListener {
  /**
   * Before the reversal's ledger statement: takes the row locks `paymentsReversed` will need
   * that other paths take before balance rows (the sessions' refunds' payouts, then the
   * refunds), so that the order is one: payout rows, refund rows, balance rows (docs/payouts.md,
   * "Lock order").
   */
  lockBeforeReversal(manager: EntityManager, sessionIds: string[]): Promise<void>;
  paymentsReversed(manager: EntityManager, reversed: ReversedPayment[]): Promise<void>;
}

export interface SettlementResult {
  sessionId: string;
  previousStatus: SessionStatus;
  status: SessionStatus;
}

/**
 * Brings a session in line with its confirmed transfers: amount_received, fee, net, status, and the
 * ledger. It recomputes from facts and posts only the difference to what was already credited, under
 * the session's row lock, so calling it any number of times, from any process, credits exactly once.
 * The deposit watcher reaches it through the DEPOSIT_SETTLEMENT port (SettlementModule provides it).
 */
@Injectable()
export class SessionSettlementService implements DepositSettlement {
  private readonly tolerancePercent: Decimal;
  private readonly toleranceMax: Decimal;
  private reversalListener: ReversedPaymentListener | null = null;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly ledger: LedgerService,
    private readonly events: SessionEvents,
  ) {
    this.tolerancePercent = new Decimal(config.underpaymentTolerancePercent);
    this.toleranceMax = new Decimal(config.underpaymentToleranceMax);
  }

  /** Called once by the refunds' module at start, in every process that imports it. */
  followReversalsWith(listener: ReversedPaymentListener): void {
    this.reversalListener = listener;
  }

  /**
   * Must run inside the caller's transaction (the one that changed the transfers, if any), which
   * also gets the events of the transfer changes it names and of the status change, if any.
   */
  async settle(
    manager: EntityManager,
    sessionId: string,
    transactionChanges: TransactionChange[] = [],
  ): Promise<SettlementResult> {
    const [result] = await this.settleMany(manager, new Map([[sessionId, transactionChanges]]));
    return result;
  }

  /**
   * Settles many sessions at once (every session a block touched), set-based: one statement each
   * to lock them (in id order, like every other path that locks sessions), sum their transfers,
   * post their ledger entries, update them and write their events, whatever their number.
   */
  async settleMany(
    manager: EntityManager,
    changesBySession: Map<string, TransactionChange[]>,
  ): Promise<SettlementResult[]> {
    const ids = [...changesBySession.keys()].sort();
    if (!ids.length) return [];
    const sessions: LockedSession[] = await manager.query(
      `SELECT ${LOCKED_SESSION_COLUMNS}, sm.code AS sub_merchant_code, sm.name AS sub_merchant_name,
              sm.logo_url AS sub_merchant_logo_url, m.name AS owner_name,
              m.logo_url AS owner_logo_url, now() AS now
         FROM checkout_sessions s JOIN merchants m ON m.id = s.merchant_id
              LEFT JOIN sub_merchants sm ON sm.id = s.sub_merchant_id
        WHERE s.id = ANY($1::text[]) ORDER BY s.id FOR UPDATE OF s`,
      [ids],
    );
    // A separate statement after the locks, so it sees every transfer committed before we got
    // them, and the caller's own changes. It serves both the sums and the sessions' objects.
    const rows: SessionTransfers[] = await manager.query(
      `SELECT session_id, (sum(amount) FILTER (WHERE status = 'Confirmed'))::text AS confirmed,
              json_agg(json_build_object(
                'id', id, 'amount', amount::text, 'created_at', created_at, 'network', network,
                'status', status, 'tx_hash', tx_hash, 'log_index', log_index)
                ORDER BY block_number, log_index) AS transactions
         FROM session_transactions WHERE session_id = ANY($1::text[]) GROUP BY session_id`,
      [ids],
    );
    const transfers = new Map(rows.map((row) => [row.session_id, row]));
    const outcomes = sessions.map((session) =>
      this.outcomeOf(session, new Decimal(transfers.get(session.id)?.confirmed ?? 0)),
    );
    // Lock order: session rows, then the reversed sessions' refund payout rows, then their refund
    // rows, then balance rows (the ledger statement). A payout's completion (worker, sandbox
    // decide) holds its payout row and then wants `fees:`; a refund's cancel or expiry holds the
    // refund row and then wants `merchant:`; the reversal guard, run after the statement (holding
    // both), locks those payouts and refunds: taken here, first, none waits on the other.
    const reversing = outcomes
      .filter((outcome) => outcome.entry?.kind === 'deposit_reversal')
      .map((outcome) => outcome.sessionId);
    if (reversing.length && this.reversalListener) {
      await this.reversalListener.lockBeforeReversal(manager, reversing);
    }
    // The ledger's statement and the sessions' update are queued on the connection at once, and
    // the events (most of the JavaScript) are built, a slice at a time, while PostgreSQL runs them.
    const statements = Promise.all([
      this.ledger.postMany(
        manager,
        outcomes.flatMap((outcome) => (outcome.entry ? [outcome.entry] : [])),
      ),
      this.saveChanged(
        manager,
        outcomes.filter((outcome) => outcome.changed),
      ),
    ]);
    // Handled by whileRunning; meanwhile a failure must not count as an unhandled rejection.
    statements.catch(() => undefined);
    const events = await this.whileRunning(statements, () =>
      this.events.prepare(
        sessions.map((session, index) => {
          const outcome = outcomes[index];
          return {
            session: afterChange(session, outcome, transfers.get(session.id)?.transactions ?? []),
            owner: { name: session.owner_name, logoUrl: session.owner_logo_url },
            transactionChanges: changesBySession.get(outcome.sessionId) ?? [],
            previous: outcome.previousStatus,
            current: outcome.status,
          };
        }),
      ),
    );
    await this.events.write(manager, events);
    const reversed = outcomes.filter((outcome) => outcome.entry?.kind === 'deposit_reversal');
    if (reversed.length && this.reversalListener) {
      await this.reversalListener.paymentsReversed(
        manager,
        reversed.map(({ sessionId, received }) => ({ sessionId, received })),
      );
    }
    return outcomes.map(({ sessionId, previousStatus, status }) => ({
      sessionId,
      previousStatus,
      status,
    }));
  }

  /**
   * Runs `work` while `statements` run, then waits for them: their failure is the one reported,
   * and should `work` throw, nothing more is sent (rollback included) until they have finished.
   */
  private async whileRunning<T>(statements: Promise<unknown>, work: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await work();
    } catch (error) {
      await statements.catch(() => undefined);
      throw error;
    }
    await statements;
    return result;
  }

  /**
   * What the session's confirmed total makes of it: amounts, status, and the ledger difference.
   * The fee is charged on the whole total with the session's own rule, never the merchant's
   * current one, so settling again (a top-up, a reorg, a late payment) never re-prices it.
   */
  private outcomeOf(session: LockedSession, received: Decimal): SettlementOutcome {
    const fee = computeFee(received, {
      percent: new Decimal(session.fee_percent),
      fixed: new Decimal(session.fee_fixed),
    });
    const net = received.minus(fee);
    const status = sessionStatusFor({
      amount: new Decimal(session.amount),
      received,
      expiresAt: new Date(session.expires_at),
      now: new Date(session.now),
      tolerancePercent: this.tolerancePercent,
      toleranceMax: this.toleranceMax,
    });
    const grossChange = received.minus(session.amount_received);
    const feeChange = fee.minus(session.fee_amount);
    const netChange = net.minus(session.net_amount);
    let ledgerVersion = session.ledger_version;
    let entry: LedgerEntry | undefined;
    if (!grossChange.isZero() || !feeChange.isZero()) {
      ledgerVersion += 1;
      entry = {
        reference: `checkout_session:${session.id}:v${ledgerVersion}`,
        kind: grossChange.isNegative() ? 'deposit_reversal' : 'deposit',
        lines: [
          {
            account: LedgerAccounts.deposits(session.network, session.currency),
            amount: grossChange,
            currency: session.currency,
            network: session.network,
          },
          {
            account: LedgerAccounts.merchant(
              session.merchant_id,
              session.sub_merchant_id,
              session.network,
              session.currency,
            ),
            amount: netChange.negated(),
            currency: session.currency,
            network: session.network,
            merchantId: session.merchant_id,
            subMerchantId: session.sub_merchant_id,
          },
          {
            account: LedgerAccounts.fees(session.network, session.currency),
            amount: feeChange.negated(),
            currency: session.currency,
            network: session.network,
          },
        ],
      };
    }
    return {
      sessionId: session.id,
      previousStatus: session.status,
      status,
      received,
      fee,
      net,
      ledgerVersion,
      entry,
      changed: ledgerVersion !== session.ledger_version || status !== session.status,
    };
  }

  private async saveChanged(manager: EntityManager, outcomes: SettlementOutcome[]): Promise<void> {
    if (!outcomes.length) return;
    // One JSON document rather than one array per column (see insertDetected).
    await manager.query(
      `UPDATE checkout_sessions s
          SET amount_received = v.received, fee_amount = v.fee, net_amount = v.net,
              status = v.status,
              paid_at = CASE WHEN v.status = 'Paid' THEN COALESCE(s.paid_at, now()) END,
              ledger_version = v.ledger_version, updated_at = now()
         FROM json_to_recordset($1::json)
           AS v(id text, received numeric, fee numeric, net numeric, status text,
                ledger_version int)
        WHERE s.id = v.id`,
      [
        JSON.stringify(
          outcomes.map((outcome) => ({
            id: outcome.sessionId,
            received: outcome.received.toFixed(),
            fee: outcome.fee.toFixed(),
            net: outcome.net.toFixed(),
            status: outcome.status,
            ledger_version: outcome.ledgerVersion,
          })),
        ),
      ],
    );
  }
}

/** The session as it is after the update (saveChanged writes exactly the outcome's values). */
function afterChange(
  session: LockedSession,
  outcome: SettlementOutcome,
  transactions: SettledTransaction[],
): SessionChange['session'] {
  const record = { ...session, transactions, status: outcome.status };
  if (outcome.changed) {
    record.amount_received = outcome.received.toFixed();
    record.fee_amount = outcome.fee.toFixed();
    record.net_amount = outcome.net.toFixed();
  }
  return record;
}
