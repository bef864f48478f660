import { Inject, Injectable, Logger } from '@nestjs/common';
import Decimal from 'decimal.js';
import { EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig, newSimulatedTxHash, SIMULATED_TX_HASH_PREFIX } from '@app/common';
import { LedgerAccounts, LedgerService } from '@app/ledger';
import { PayoutEvents } from '../payout-events';
import { PayoutRecord } from '../payout.types';
import { PayoutJournalRepository } from './payout-journal.repository';
import { simulatedCompletionEntry } from './simulated-completion';

/**
 * 'on_chain': real money covers it, the worker may sign it. 'awaiting_simulation': simulated
 * money funds it; parked until a test helper ends it. 'completed_simulated': the payout of a
 * refund of a simulated payment, within what simulation brought that session, completed without
 * a chain (no helper can reach a refund's payout).
 */
export type SandboxFundingDecision = 'on_chain' | 'awaiting_simulation' | 'completed_simulated';

/** What a balance (merchant, sub-merchant, network, currency) holds in real money. */
export interface RealFunds {
  /** Deposit credits net of their reversals, less what simulated transfers brought in. */
  realIn: Decimal;
  /** Payouts (refunds' included) signed on a chain: in flight, or completed there. */
  onChain: Decimal;
}

/** One claim's view of its balances: real funds read once, and what it signs from each. */
export interface SandboxClaim {
  funds: Map<string, RealFunds>;
  signed: Map<string, Decimal>;
}

export function newSandboxClaim(): SandboxClaim {
  return { funds: new Map(), signed: new Map() };
}

/** The SQL pattern of a simulated transaction hash (a payout completed by a test helper). */
const SIMULATED_HASH = `${SIMULATED_TX_HASH_PREFIX}%`;

/**
 * Simulated money never leaves on a chain (docs/sandbox.md, "Simulated money stays simulated").
 * In the sandbox a payout is signed only when the balance's real money covers it:
 * `onChain + amount <= realIn` for its merchant, sub-merchant, network and currency, decided in
 * the worker's claim transaction under a lock of that balance. Outside the sandbox it reads
 * nothing (`applies` is false) and the claim is what it always was.
 */
@Injectable()
export class SandboxFunding {
  private readonly logger = new Logger(SandboxFunding.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly journal: PayoutJournalRepository,
    private readonly ledger: LedgerService,
    private readonly events: PayoutEvents,
  ) {}

  /**
   * The deployment decides, not the row: simulated money exists wherever the test helpers run
   * (APP_ENV is not production), whatever a payout's own `livemode` says (a row restored from or
   * shared with production would otherwise sign from simulated credit unchecked).
   */
  applies(): boolean {
    return !this.config.livemode;
  }

  /**
   * Decides whether the payout, locked by the caller (Pending), may be signed; when simulated
   * money funds it, parks it (or completes a refund's without a chain) in the caller's
   * transaction. The balance's advisory lock, held to the end of that transaction, makes the
   * decision and the claim one step: a second worker checks only after the first one's payout
   * is Processing (and counted) or parked.
   */
  async decide(manager: EntityManager, payout: PayoutRecord): Promise<SandboxFundingDecision> {
    const refundId = (payout as PayoutRecord & { refund_id?: string | null }).refund_id ?? null;
    const refund = refundId ? await this.refundOf(manager, refundId) : null;
    if (refund?.unmatched_transfer_id) {
      // An unmatched transfer's refund sends back what a sender sent on chain (a simulation never
      // makes one), out of `unmatched`: never the merchant's balance, real by construction.
      return 'on_chain';
    }
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [
      `payouts.sandbox_funding:${balanceKey(payout)}`,
    ]);
    // A refund of a simulated payment is simulated too, up to what simulation brought that
    // session; past it (a real payment's refund) it is any payout: real money sends it, or it waits.
    if (
      refund?.session_id &&
      (await this.simulatedPartCovers(manager, refund.session_id, payout))
    ) {
      await this.journal.markCompleted(manager, payout.id, newSimulatedTxHash());
      await this.ledger.post(manager, simulatedCompletionEntry(payout));
      await this.events.statusChanged(manager, payout.id, 'Pending');
      this.logger.log(
        { payoutId: payout.id, amount: payout.amount, sessionId: refund.session_id },
        "Refund's payout of a simulated payment completed without a chain",
      );
      return 'completed_simulated';
    }
    const funds = await this.realFunds(manager, payout);
    if (funds.onChain.plus(payout.amount).lte(funds.realIn)) return 'on_chain';
    await this.journal.awaitSimulation(manager, payout.id);
    this.logger.log(
      {
        payoutId: payout.id,
        amount: payout.amount,
        realIn: funds.realIn.toFixed(),
        onChain: funds.onChain.toFixed(),
      },
      'Payout funded by simulated money waits for a test helper',
    );
    return 'awaiting_simulation';
  }

  /**
   * The sandbox's first look at leased payouts, in the caller's transaction: parks (or, a
   * refund's, completes) those that simulated money funds and returns those that may go on chain
   * (the claim's transaction decides again, counting the claim's earlier payouts). Payouts no
   * longer sendable are left out of `locked`.
   */
  async keepOnChain(
    manager: EntityManager,
    leased: PayoutRecord[],
  ): Promise<{ locked: PayoutRecord[]; kept: PayoutRecord[] }> {
    const locked = await this.journal.lockSendableMany(
      manager,
      leased.map((payout) => payout.id),
    );
    if (locked.length === 1 && refundIdOf(locked[0]) !== null) {
      const decision = await this.decide(manager, locked[0]);
      return { locked, kept: decision === 'on_chain' ? locked : [] };
    }
    if (locked.some((payout) => refundIdOf(payout) !== null)) {
      throw new Error("A refund's payout is claimed alone.");
    }
    await this.lockBalances(manager, locked);
    // No claimSigns here: each payout is judged against what is on chain, without the others.
    const alone = newSandboxClaim();
    const kept: PayoutRecord[] = [];
    for (const payout of locked) {
      if ((await this.decideInClaim(manager, payout, alone)) === 'on_chain') kept.push(payout);
    }
    return { locked, kept };
  }

  /**
   * For a claim of several payouts (none a refund's: those are claimed alone, through `decide`):
   * locks each of their balances once, in key order, so two claims never wait on each other's
   * balances crosswise. The caller takes these before the hot wallet's lock, as `decide` is.
   */
  async lockBalances(manager: EntityManager, payouts: PayoutRecord[]): Promise<void> {
    const keys = [...new Set(payouts.map(balanceKey))].sort();
    for (const key of keys) {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [
        `payouts.sandbox_funding:${key}`,
      ]);
    }
  }

  /**
   * `decide` for a payout of a claim of several, its balance locked by `lockBalances`: the
   * balance's real funds are read once per claim, and what the claim signs from it before this
   * payout (`signed`, updated by the caller as it signs) counts as on chain, as it will once
   * committed: two payouts of one balance in one claim are never covered by the same money.
   */
  async decideInClaim(
    manager: EntityManager,
    payout: PayoutRecord,
    claim: SandboxClaim,
  ): Promise<Exclude<SandboxFundingDecision, 'completed_simulated'>> {
    const key = balanceKey(payout);
    let funds = claim.funds.get(key);
    if (!funds) {
      funds = await this.realFunds(manager, payout);
      claim.funds.set(key, funds);
    }
    const signed = claim.signed.get(key) ?? new Decimal(0);
    if (funds.onChain.plus(signed).plus(payout.amount).lte(funds.realIn)) return 'on_chain';
    await this.journal.awaitSimulation(manager, payout.id);
    this.logger.log(
      {
        payoutId: payout.id,
        amount: payout.amount,
        realIn: funds.realIn.toFixed(),
        onChain: funds.onChain.plus(signed).toFixed(),
      },
      'Payout funded by simulated money waits for a test helper',
    );
    return 'awaiting_simulation';
  }

  /** The claim signs `payout`: its amount counts against its balance for the claim's next ones. */
  claimSigns(claim: SandboxClaim, payout: PayoutRecord): void {
    const key = balanceKey(payout);
    claim.signed.set(key, (claim.signed.get(key) ?? new Decimal(0)).plus(payout.amount));
  }

  /**
   * Whether the session's simulated part, min(net, confirmed simulated transfers) (what realFunds
   * takes out of `realIn`), covers its refunds already completed without a chain plus this one.
   */
  private async simulatedPartCovers(
    manager: EntityManager,
    sessionId: string,
    payout: PayoutRecord,
  ): Promise<boolean> {
    const [row]: Array<{ simulated: string; refunded: string }> = await manager.query(
      `SELECT GREATEST(LEAST(s.net_amount, COALESCE((
                SELECT sum(t.amount) FROM session_transactions t
                 WHERE t.session_id = s.id AND t.status = 'Confirmed' AND t.tx_hash LIKE $3), 0)),
              0)::text AS simulated,
              (SELECT COALESCE(sum(p.amount), 0) FROM payouts p JOIN refunds r ON r.id = p.refund_id
                WHERE r.session_id = s.id AND p.id <> $2 AND p.status = 'Completed'
                  AND p.tx_hash LIKE $3)::text AS refunded
         FROM checkout_sessions s WHERE s.id = $1`,
      [sessionId, payout.id, SIMULATED_HASH],
    );
    if (!row) return false;
    return new Decimal(row.refunded).plus(payout.amount).lte(row.simulated);
  }

  /**
   * The balance's real money. `realIn`: the credits of deposit entries (kind `deposit` and
   * `deposit_reversal`, a session's settlement) to the merchant's account, less, per checkout
   * session, the part of its net amount that its confirmed simulated transfers brought in:
   * min(net, simulated received), so a session's fee is charged to its real part first (the
   * conservative side). `onChain`: the amounts of its payouts signed on a chain (Processing, or
   * Completed with a real hash), refunds of sessions included, an unmatched transfer's refund not.
   */
  async realFunds(manager: EntityManager, payout: PayoutRecord): Promise<RealFunds> {
    const params = [payout.merchant_id, payout.sub_merchant_id, payout.network, payout.currency];
    const account = LedgerAccounts.merchant(
      payout.merchant_id,
      payout.sub_merchant_id,
      payout.network,
      payout.currency,
    );
    const [row]: Array<{ credited: string; simulated: string; on_chain: string }> =
      await manager.query(
        `SELECT
           (SELECT COALESCE(-sum(l.amount), 0) FROM ledger_lines l
              JOIN ledger_entries e ON e.id = l.entry_id
             WHERE l.account = $5 AND e.kind IN ('deposit', 'deposit_reversal'))::text AS credited,
           (SELECT COALESCE(sum(LEAST(s.net_amount, sim.amount)), 0) FROM checkout_sessions s
              CROSS JOIN LATERAL (
                SELECT sum(t.amount) AS amount FROM session_transactions t
                 WHERE t.session_id = s.id AND t.status = 'Confirmed' AND t.tx_hash LIKE $6) sim
             WHERE s.merchant_id = $1 AND s.sub_merchant_id IS NOT DISTINCT FROM $2
               AND s.network = $3 AND s.currency = $4 AND sim.amount IS NOT NULL)::text AS simulated,
           (SELECT COALESCE(sum(p.amount), 0) FROM payouts p
             WHERE p.merchant_id = $1 AND p.sub_merchant_id IS NOT DISTINCT FROM $2
               AND p.network = $3 AND p.currency = $4
               AND (p.status = 'Processing' OR (p.status = 'Completed' AND p.tx_hash NOT LIKE $6))
               AND NOT EXISTS (SELECT 1 FROM refunds r WHERE r.id = p.refund_id
                                  AND r.unmatched_transfer_id IS NOT NULL))::text AS on_chain`,
        [...params, account, SIMULATED_HASH],
      );
    return {
      realIn: new Decimal(row.credited).minus(row.simulated),
      onChain: new Decimal(row.on_chain),
    };
  }

  private async refundOf(
    manager: EntityManager,
    refundId: string,
  ): Promise<{ session_id: string | null; unmatched_transfer_id: string | null } | null> {
    const rows: Array<{ session_id: string | null; unmatched_transfer_id: string | null }> =
      await manager.query(`SELECT session_id, unmatched_transfer_id FROM refunds WHERE id = $1`, [
        refundId,
      ]);
    return rows[0] ?? null;
  }
}

function balanceKey(payout: PayoutRecord): string {
  const sub = payout.sub_merchant_id ?? '-';
  return `${payout.merchant_id}:${sub}:${payout.network}:${payout.currency}`;
}

/** The refund a payout pays, if it is one's (PayoutRecord does not type the column). */
export function refundIdOf(payout: PayoutRecord): string | null {
  return (payout as PayoutRecord & { refund_id?: string | null }).refund_id ?? null;
}
