import { Inject, Injectable } from '@nestjs/common';
import Decimal from 'decimal.js';
import { EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/common';
import { LedgerAccounts, LedgerService } from '@app/ledger';
import { SessionStatus } from '../checkout-session.entity';
import { computeFee, FeeRule } from './fee-rule';
import { SessionEvents, TransactionChange } from './session-events';
import { sessionStatusFor } from './session-status';

interface LockedSession {
  id: string;
  merchant_id: string;
  sub_merchant_id: string | null;
  currency: string;
  network: string;
  amount: string;
  amount_received: string;
  fee_amount: string;
  net_amount: string;
  status: SessionStatus;
  expires_at: Date;
  paid_at: Date | null;
  ledger_version: number;
  fee_percent: string | null;
  fee_fixed: string | null;
  now: Date;
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
 */
@Injectable()
export class SessionSettlementService {
  private readonly defaultFee: FeeRule;
  private readonly tolerancePercent: Decimal;
  private readonly toleranceMax: Decimal;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly ledger: LedgerService,
    private readonly events: SessionEvents,
  ) {
    this.defaultFee = {
      percent: new Decimal(config.feePercent),
      fixed: new Decimal(config.feeFixed),
    };
    this.tolerancePercent = new Decimal(config.underpaymentTolerancePercent);
    this.toleranceMax = new Decimal(config.underpaymentToleranceMax);
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
    const [session]: LockedSession[] = await manager.query(
      `SELECT s.id, s.merchant_id, s.sub_merchant_id, s.currency, s.network, s.amount,
              s.amount_received, s.fee_amount, s.net_amount, s.status, s.expires_at, s.paid_at,
              s.ledger_version, m.fee_percent, m.fee_fixed, now() AS now
         FROM checkout_sessions s JOIN merchants m ON m.id = s.merchant_id
        WHERE s.id = $1 FOR UPDATE OF s`,
      [sessionId],
    );
    // A separate statement after the lock, so it sees every transfer committed before we got it.
    const [{ confirmed }]: Array<{ confirmed: string }> = await manager.query(
      `SELECT COALESCE(sum(amount), 0) AS confirmed FROM session_transactions
        WHERE session_id = $1 AND status = 'Confirmed'`,
      [sessionId],
    );
    const received = new Decimal(confirmed);
    const fee = computeFee(received, this.feeRuleOf(session));
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
    if (!grossChange.isZero() || !feeChange.isZero()) {
      ledgerVersion += 1;
      await this.ledger.post(manager, {
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
      });
    }
    if (ledgerVersion !== session.ledger_version || status !== session.status) {
      await manager.query(
        `UPDATE checkout_sessions
            SET amount_received = $2, fee_amount = $3, net_amount = $4, status = $5,
                paid_at = CASE WHEN $5 = 'Paid' THEN COALESCE(paid_at, now()) END,
                ledger_version = $6, updated_at = now()
          WHERE id = $1`,
        [session.id, received.toFixed(), fee.toFixed(), net.toFixed(), status, ledgerVersion],
      );
    }
    await this.events.record(manager, session.id, transactionChanges, {
      previous: session.status,
      current: status,
    });
    return { sessionId: session.id, previousStatus: session.status, status };
  }

  private feeRuleOf(session: LockedSession): FeeRule {
    return {
      percent:
        session.fee_percent === null ? this.defaultFee.percent : new Decimal(session.fee_percent),
      fixed: session.fee_fixed === null ? this.defaultFee.fixed : new Decimal(session.fee_fixed),
    };
  }
}
