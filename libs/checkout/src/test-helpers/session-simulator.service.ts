import { Injectable } from '@nestjs/common';
import Decimal from 'decimal.js';
import { EntityManager } from 'typeorm';
import { AuthenticatedMerchant } from '@app/auth';
import { Currency, NetworkName, NetworkRegistry } from '@app/chains';
import { ApiException, ErrorCode } from '@app/common';
import type { TransactionChange } from '@app/deposits';
import { DetectedTransfersRepository } from '@app/deposits/detected-transfers.repository';
import { toTokenAmount } from '@app/deposits/transfer-matcher';
import { IdempotencyService, IdempotentResult } from '@app/idempotency';
import { LedgerService } from '@app/ledger';
import { CheckoutSessionMapper } from '../checkout-session.mapper';
import { CheckoutSessionsRepository } from '../checkout-sessions.repository';
import { CheckoutSessionDto } from '../dto/checkout-session.dto';
import { SessionSettlementService } from '../settlement/session-settlement.service';
import { SimulatePaymentDto } from './dto/simulate-payment.dto';
import {
  newSimulatedTxHash,
  SIMULATED_TX_HASH_PREFIX,
  simulatedDepositEntry,
} from './simulated-transfers';

const ENDPOINT = 'POST /v1/test-helpers/checkout/sessions/{id}';

/** The session under its row lock, as simulating needs it. */
interface LockedSession {
  id: string;
  status: string;
  network: string;
  currency: string;
  currency_contract: string;
  pay_address: string;
  livemode: boolean;
  /** Paid with a confirmed transfer standing: a new transfer would not be the session's. */
  paid: boolean;
  refunded: boolean;
}

/**
 * Sandbox simulations of what the chain does to a session. Each one is what the deposit watcher's
 * tick does for the same event, in one transaction: the session's row lock, the transfer written
 * (or reverted) by the watcher's own repository, then the same settlement (amounts, status, ledger,
 * events and webhooks, the hosted page's stream). Only the chain is missing: the transfer's hash
 * is synthetic (see simulated-transfers.ts) and its money is booked apart from `deposits:`.
 */
@Injectable()
export class SessionSimulatorService {
  constructor(
    private readonly idempotency: IdempotencyService,
    private readonly networks: NetworkRegistry,
    private readonly transfers: DetectedTransfersRepository,
    private readonly settlement: SessionSettlementService,
    private readonly ledger: LedgerService,
    private readonly sessions: CheckoutSessionsRepository,
    private readonly mapper: CheckoutSessionMapper,
  ) {}

  async pay(
    merchant: AuthenticatedMerchant,
    sessionId: string,
    input: SimulatePaymentDto,
    idempotencyKey: string | undefined,
  ): Promise<IdempotentResult<CheckoutSessionDto>> {
    return this.run(merchant, sessionId, 'payments', input, idempotencyKey, async (manager) => {
      const session = await this.lock(manager, merchant, sessionId);
      if (session.paid || session.refunded) {
        // A real transfer now would be an unmatched one (session_already_paid, session_refunded).
        throw new ApiException(
          ErrorCode.InvalidState,
          `Checkout session '${sessionId}' is ${session.paid ? 'paid' : 'refunded'}: it takes no ` +
            'further payment (a real transfer would be recorded as an unmatched transfer).',
          'id',
        );
      }
      const network = this.networks.get(session.network as NetworkName);
      const token = this.networks.token(network.name, session.currency as Currency);
      if (!token) throw ApiException.notFound('checkout session', sessionId);
      const baseUnits = toBaseUnits(input.amount, token.decimals);
      const confirmations = input.confirmations ?? network.confirmations;
      const confirmed = confirmations >= network.confirmations;
      const written = await this.transfers.insertDetected(manager, [
        {
          sessionId: session.id,
          network: session.network,
          currency: session.currency,
          tokenContract: session.currency_contract,
          fromAddress: 'simulated',
          toAddress: session.pay_address,
          txHash: newSimulatedTxHash(),
          logIndex: 0,
          amount: toTokenAmount(baseUnits, token.decimals),
          amountBaseUnits: baseUnits.toString(),
          blockNumber: await this.blockFor(manager, session.network, confirmations),
          blockHash: 'simulated',
          confirmed,
        },
      ]);
      const [transfer] = written;
      const changes: TransactionChange[] = [
        { transactionId: transfer.id, kind: 'detected', previousStatus: null },
      ];
      if (confirmed) {
        changes.push({ transactionId: transfer.id, kind: 'confirmed', previousStatus: 'Pending' });
      }
      await this.settlement.settle(manager, session.id, changes);
      if (confirmed) {
        await this.ledger.post(
          manager,
          simulatedDepositEntry({
            transactionId: transfer.id,
            network: session.network,
            currency: session.currency,
            amount: toTokenAmount(baseUnits, token.decimals),
            reverted: false,
          }),
        );
      }
      return this.answer(manager, merchant, sessionId);
    });
  }

  async reorg(
    merchant: AuthenticatedMerchant,
    sessionId: string,
    idempotencyKey: string | undefined,
  ): Promise<IdempotentResult<CheckoutSessionDto>> {
    return this.run(merchant, sessionId, 'reorg', {}, idempotencyKey, async (manager) => {
      const session = await this.lock(manager, merchant, sessionId);
      const [last]: Array<{ id: string; status: 'Pending' | 'Confirmed'; amount: string }> =
        await manager.query(
          `SELECT id, status, amount::text AS amount FROM session_transactions
            WHERE session_id = $1 AND status <> 'Reverted' AND tx_hash LIKE $2
            ORDER BY created_at DESC, id DESC LIMIT 1 FOR UPDATE`,
          [session.id, `${SIMULATED_TX_HASH_PREFIX}%`],
        );
      if (!last) {
        throw new ApiException(
          ErrorCode.InvalidState,
          `Checkout session '${sessionId}' has no simulated transfer left to revert.`,
          'id',
        );
      }
      await this.transfers.markReverted(manager, [last.id]);
      // Lock order: settlement's entry (`deposits:`, `fees:`, `merchant:`) before the move out of
      // `simulated:`, as `payments` does. Every posting locks balance rows in account order;
      // a `simulated:` row taken first would be held while this waits for `fees:`, which the
      // payouts' `complete` helper (`fees:`, `merchant_held:`, `simulated:`) holds while it
      // waits for `simulated:`: a deadlock. `deposits:` may stand below zero in between, within
      // this transaction only (nothing checks its sign).
      await this.settlement.settle(manager, session.id, [
        { transactionId: last.id, kind: 'reverted', previousStatus: last.status },
      ]);
      if (last.status === 'Confirmed') {
        await this.ledger.post(
          manager,
          simulatedDepositEntry({
            transactionId: last.id,
            network: session.network,
            currency: session.currency,
            amount: last.amount,
            reverted: true,
          }),
        );
      }
      return this.answer(manager, merchant, sessionId);
    });
  }

  async expire(
    merchant: AuthenticatedMerchant,
    sessionId: string,
    idempotencyKey: string | undefined,
  ): Promise<IdempotentResult<CheckoutSessionDto>> {
    return this.run(merchant, sessionId, 'expire', {}, idempotencyKey, async (manager) => {
      const session = await this.lock(manager, merchant, sessionId);
      if (session.status !== 'Pending') {
        throw new ApiException(
          ErrorCode.InvalidState,
          `Checkout session '${sessionId}' is ${session.status}: only a Pending session expires.`,
          'id',
        );
      }
      // now() is the transaction's time, the one settlement compares expires_at with.
      await manager.query(
        `UPDATE checkout_sessions SET expires_at = now(), updated_at = now() WHERE id = $1`,
        [session.id],
      );
      await this.settlement.settle(manager, session.id);
      return this.answer(manager, merchant, sessionId);
    });
  }

  private run(
    merchant: AuthenticatedMerchant,
    sessionId: string,
    action: string,
    body: object,
    key: string | undefined,
    work: (manager: EntityManager) => Promise<CheckoutSessionDto>,
  ): Promise<IdempotentResult<CheckoutSessionDto>> {
    return this.idempotency.execute(
      {
        merchantId: merchant.merchantId,
        key,
        endpoint: `${ENDPOINT}/${action}`,
        fingerprint: { session_id: sessionId, body },
      },
      async (manager) => ({ status: 200, body: await work(manager) }),
    );
  }

  /** The merchant's own sandbox session, locked as the watcher locks it; another's is a 404. */
  private async lock(
    manager: EntityManager,
    merchant: AuthenticatedMerchant,
    sessionId: string,
  ): Promise<LockedSession> {
    const [session]: LockedSession[] = await manager.query(
      `SELECT s.id, s.status, s.network, s.currency, s.currency_contract, s.pay_address,
              s.livemode,
              (s.status = 'Paid' AND EXISTS (
                 SELECT 1 FROM session_transactions t
                  WHERE t.session_id = s.id AND t.status = 'Confirmed')) AS paid,
              EXISTS (SELECT 1 FROM refunds r
                       WHERE r.session_id = s.id AND r.status NOT IN ('Failed', 'Canceled'))
                AS refunded
         FROM checkout_sessions s WHERE s.id = $1 AND s.merchant_id = $2 FOR UPDATE OF s`,
      [sessionId, merchant.merchantId],
    );
    if (!session || session.livemode) throw ApiException.notFound('checkout session', sessionId);
    return session;
  }

  /**
   * A block as deep as `confirmations` under the network's last scanned block, so the session's
   * transfers keep their order and the hosted page counts the confirmations asked for (0 when the
   * network was never scanned).
   */
  private async blockFor(
    manager: EntityManager,
    network: string,
    confirmations: number,
  ): Promise<number> {
    const [cursor]: Array<{ last_scanned_block: string }> = await manager.query(
      `SELECT last_scanned_block FROM chain_cursors WHERE network = $1`,
      [network],
    );
    if (!cursor) return 0;
    return Math.max(Number(cursor.last_scanned_block) - confirmations + 1, 0);
  }

  private async answer(
    manager: EntityManager,
    merchant: AuthenticatedMerchant,
    sessionId: string,
  ): Promise<CheckoutSessionDto> {
    const row = await this.sessions.findForMerchant(merchant.merchantId, sessionId, manager);
    if (!row) throw ApiException.notFound('checkout session', sessionId);
    return this.mapper.toDto(row, merchant);
  }
}

/** The amount in the token's base units; more fractional digits than the token has is a 400. */
function toBaseUnits(amount: string, decimals: number): bigint {
  const scaled = new Decimal(amount).times(new Decimal(10).pow(decimals));
  if (!scaled.isInteger()) {
    throw ApiException.invalid(
      'amount',
      `amount must have at most ${decimals} fractional digits for this token.`,
    );
  }
  return BigInt(scaled.toFixed(0));
}
