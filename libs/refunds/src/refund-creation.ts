import { Injectable } from '@nestjs/common';
import Decimal from 'decimal.js';
import { EntityManager } from 'typeorm';
import { ApiException, ErrorCode, formatAmount, ID_PREFIX, newId } from '@app/common';
import { AuthenticatedMerchant } from '@app/auth';
import { Currency, NetworkName, NetworkRegistry } from '@app/chains';
import { IDEMPOTENCY_KEY_HEADER, IdempotencyService, IdempotentResult } from '@app/idempotency';
import { LedgerAccounts, LedgerService } from '@app/ledger';
import { PayoutQueue } from '@app/payouts';
import { PayoutDestination } from '@app/payouts/rules/payout-destination';
import { watchedDepth } from '@app/deposits/scan-plan';
import { SubMerchantRef, SubMerchantsService } from '@app/sub-merchants';
import { CreateRefundDto } from './dto/create-refund.dto';
import { RefundDto } from './dto/refund.dto';
import {
  assertRefundAmount,
  assertSendable,
  defaultRefundAmount,
  refundableOf,
} from './refund-amounts';
import { RefundEvents } from './refund-events';
import { mayReadDestinationLink, RefundDestinationLinks } from './refund-destination-links';
import { refundHoldEntry } from './refund-ledger';
import { toRefundDto } from './refund.mapper';
import { RefundPayouts } from './refund-payouts';
import { RefundSourcesRepository } from './refund-sources.repository';
import { RefundsRepository } from './refunds.repository';

export const CREATE_SESSION_REFUND_ENDPOINT = 'POST /v1/checkout/sessions/{id}/refunds';
export const CREATE_UNMATCHED_REFUND_ENDPOINT = 'POST /v1/unmatched-transfers/{id}/refunds';

/**
 * Runs in the new refund's transaction, after it is written with its hold and event: the console
 * records its audit entry there, so the entry exists exactly when the refund does. An idempotent
 * replay runs no hook. The refund as stored: its `destination_url` is null (the secret is never
 * at rest; the answer gets it after the commit).
 */
export type RefundCreatedHook = (manager: EntityManager, refund: RefundDto) => Promise<void>;

/** What a new refund takes, once its source has been read and checked under its row lock. */
interface RefundDraft {
  merchantId: string;
  subMerchantId: string | null;
  livemode: boolean;
  sessionId: string | null;
  unmatchedTransferId: string | null;
  amount: Decimal;
  fee: Decimal;
  currency: string;
  network: NetworkName;
  chainFamily: string;
}

/**
 * Refunds created, of sessions and unmatched transfers: the source read and checked under its row
 * lock, the amount held (one transaction, under the balance's lock too), the refund stored with
 * its event and, with an address, its payout. RefundsService answers the API through it.
 */
@Injectable()
export class RefundCreation {
  constructor(
    private readonly networks: NetworkRegistry,
    private readonly refunds: RefundsRepository,
    private readonly sources: RefundSourcesRepository,
    private readonly refundPayouts: RefundPayouts,
    private readonly destination: PayoutDestination,
    private readonly ledger: LedgerService,
    private readonly idempotency: IdempotencyService,
    private readonly subMerchants: SubMerchantsService,
    private readonly queue: PayoutQueue,
    private readonly events: RefundEvents,
    private readonly links: RefundDestinationLinks,
  ) {}

  async createForSession(
    merchant: AuthenticatedMerchant,
    sessionId: string,
    input: CreateRefundDto,
    idempotencyKey: string | undefined,
    subMerchantCode: string | undefined,
    onCreated?: RefundCreatedHook,
  ): Promise<IdempotentResult<RefundDto>> {
    requireIdempotencyKey(idempotencyKey, CREATE_SESSION_REFUND_ENDPOINT);
    return this.createIdempotently(
      merchant,
      CREATE_SESSION_REFUND_ENDPOINT,
      idempotencyKey,
      { session_id: sessionId, body: input, sub_merchant_code: subMerchantCode ?? null },
      async (manager) => {
        // After the replay check: a retry gets its stored answer even if the sub-merchant has
        // since been deactivated.
        const subMerchant = await this.subMerchants.resolveForCreation(merchant, subMerchantCode);
        // A payment a watcher tick classified for this session is visible once we hold the
        // session (the tick holds it until it commits), and no tick classifies one against it
        // without this refund until we commit (docs/refunds.md, late payments).
        const session = await this.sources.lockSession(
          manager,
          merchant.merchantId,
          sessionId,
          (network) => watchedDepth(this.networks.get(network as NetworkName).confirmations),
        );
        if (!session || !inScope(subMerchant, session.sub_merchant_id)) {
          throw ApiException.notFound('checkout session', sessionId);
        }
        if (session.confirming) {
          // Its confirmation would add to what was received after the refund was decided on it.
          throw new ApiException(
            ErrorCode.InvalidState,
            `Checkout session ${sessionId} has a payment still confirming (or reverted by a chain reorganization and not yet settled); refund it once it is confirmed or settled.`,
            'id',
          );
        }
        const facts = {
          status: session.status,
          amount: new Decimal(session.amount),
          received: new Decimal(session.amount_received),
          refunded: new Decimal(await this.sources.refundedOfSession(manager, session.id)),
        };
        const amount = input.amount ? new Decimal(input.amount) : defaultRefundAmount(facts);
        if (amount === null) {
          throw new ApiException(
            ErrorCode.ParameterMissing,
            `amount is required for a ${session.status} session without excess: only you know how much to give back (at most ${formatAmount(refundableOf(facts))} ${session.currency}).`,
            'amount',
          );
        }
        const fee = this.refundPayouts.networkFee(session.network as NetworkName);
        assertRefundAmount(amount, refundableOf(facts), fee, session.currency);
        return {
          merchantId: session.merchant_id,
          subMerchantId: session.sub_merchant_id,
          livemode: session.livemode,
          sessionId: session.id,
          unmatchedTransferId: null,
          amount,
          fee,
          currency: session.currency,
          network: session.network as NetworkName,
          chainFamily: session.chain_family,
        };
      },
      input,
      onCreated,
    );
  }

  async createForUnmatchedTransfer(
    merchant: AuthenticatedMerchant,
    transferId: string,
    input: CreateRefundDto,
    idempotencyKey: string | undefined,
    subMerchantCode: string | undefined,
    onCreated?: RefundCreatedHook,
  ): Promise<IdempotentResult<RefundDto>> {
    requireIdempotencyKey(idempotencyKey, CREATE_UNMATCHED_REFUND_ENDPOINT);
    if (input.to_address === undefined) {
      // Nobody could give it later: an unmatched transfer has no hosted page of its own.
      throw new ApiException(
        ErrorCode.ParameterMissing,
        'to_address is required to refund an unmatched transfer: there is no checkout page on which the customer could enter it.',
        'to_address',
      );
    }
    return this.createIdempotently(
      merchant,
      CREATE_UNMATCHED_REFUND_ENDPOINT,
      idempotencyKey,
      {
        unmatched_transfer_id: transferId,
        body: input,
        sub_merchant_code: subMerchantCode ?? null,
      },
      async (manager) => {
        const subMerchant = await this.subMerchants.resolveForCreation(merchant, subMerchantCode);
        const transfer = await this.sources.lockUnmatchedTransfer(
          manager,
          merchant.merchantId,
          transferId,
        );
        if (!transfer || !inScope(subMerchant, transfer.sub_merchant_id)) {
          throw ApiException.notFound('unmatched transfer', transferId);
        }
        if (transfer.status !== 'detected') {
          throw new ApiException(
            ErrorCode.InvalidState,
            `Unmatched transfer ${transferId} was reverted: its transaction is no longer on the chain, there is nothing to refund.`,
            'id',
          );
        }
        if (!transfer.booked) {
          // Its tokens are in the books (and in `unmatched`, which the refund draws on) once its
          // block has the network's confirmations.
          throw new ApiException(
            ErrorCode.InvalidState,
            `Unmatched transfer ${transferId} is not confirmed yet; refund it once it is.`,
            'id',
          );
        }
        const existing = await this.sources.liveRefundOfTransfer(manager, transfer.id);
        if (existing) {
          throw new ApiException(
            ErrorCode.ResourceAlreadyExists,
            `Unmatched transfer ${transferId} is refunded once, by ${existing}; cancel it first to refund it otherwise.`,
            'id',
          );
        }
        const network = transfer.network as NetworkName;
        const transferAmount = new Decimal(transfer.amount);
        const amount = input.amount ? new Decimal(input.amount) : transferAmount;
        const fee = this.refundPayouts.networkFee(network);
        assertRefundAmount(amount, transferAmount, fee, transfer.currency);
        if (!amount.equals(transferAmount)) {
          // Refunded once (one live refund per transfer): a part would leave the rest for good.
          throw new ApiException(
            ErrorCode.AmountTooSmall,
            `amount must be the transfer's whole amount, ${formatAmount(transferAmount)} ${transfer.currency}: an unmatched transfer is refunded once, in full.`,
            'amount',
          );
        }
        return {
          merchantId: transfer.merchant_id,
          subMerchantId: transfer.sub_merchant_id,
          livemode: transfer.livemode,
          sessionId: null,
          unmatchedTransferId: transfer.id,
          amount,
          fee,
          currency: transfer.currency,
          network,
          chainFamily: this.networks.get(network).chainFamily,
        };
      },
      input,
      onCreated,
    );
  }

  /**
   * The one idempotent transaction of a creation: the source checked under its lock (`draft`),
   * the destination checked, the amount held, the refund stored with its event, and with an
   * address its payout created. A refusal anywhere rolls everything back: nothing is written.
   */
  private async createIdempotently(
    merchant: AuthenticatedMerchant,
    endpoint: string,
    idempotencyKey: string,
    fingerprint: object,
    draft: (manager: EntityManager) => Promise<RefundDraft>,
    input: CreateRefundDto,
    onCreated: RefundCreatedHook | undefined,
  ): Promise<IdempotentResult<RefundDto>> {
    let payoutToSend: string | null = null;
    const result = await this.idempotency.execute(
      { merchantId: merchant.merchantId, key: idempotencyKey, endpoint, fingerprint },
      async (manager) => {
        const refund = await draft(manager);
        const token = this.networks.token(refund.network, refund.currency as Currency);
        if (!token) throw new Error(`No ${refund.currency} on ${refund.network}`);
        assertSendable(refund.amount, token.decimals);
        const toAddress =
          input.to_address === undefined
            ? null
            : await this.destination.check(this.networks.get(refund.network), input.to_address);
        if (refund.unmatchedTransferId === null) await this.assertBalanceCovers(manager, refund);
        const record = await this.refunds.insert(manager, {
          id: newId(ID_PREFIX.refund),
          merchantId: refund.merchantId,
          subMerchantId: refund.subMerchantId,
          livemode: refund.livemode,
          sessionId: refund.sessionId,
          unmatchedTransferId: refund.unmatchedTransferId,
          status: toAddress === null ? 'requires_destination' : 'Pending',
          amount: refund.amount.toFixed(),
          fee: refund.fee.toFixed(),
          netAmount: refund.amount.minus(refund.fee).toFixed(),
          currency: refund.currency,
          network: refund.network,
          chainFamily: refund.chainFamily,
          toAddress,
          reason: input.reason ?? null,
        });
        await this.ledger.post(manager, refundHoldEntry(record));
        if (toAddress !== null) {
          const payout = await this.refundPayouts.create(manager, record, toAddress);
          if (payout.sendNow) payoutToSend = payout.payoutId;
        }
        const created = await this.events.statusChanged(manager, record.id, null);
        const stored = toRefundDto(created);
        await onCreated?.(manager, stored);
        return { status: 201, body: stored };
      },
    );
    if (!result.replayed && payoutToSend) await this.queue.enqueueSend(payoutToSend);
    // Stored without the customer's link (its secret is never at rest); added to every answer,
    // the replayed ones too, from the refund as it stands now: a replay after the refund moved on
    // (an address given, canceled) gets null, as a read does (review L1).
    const body = result.response.body;
    const current = result.replayed
      ? await this.refunds.findForMerchant(merchant.merchantId, body.id)
      : body;
    const links = this.linksFor(merchant);
    const destinationUrl = current && links ? links.urlOf(current) : null;
    return {
      ...result,
      response: { ...result.response, body: { ...body, destination_url: destinationUrl } },
    };
  }

  /** The links, for a caller who may read them (mayReadDestinationLink); else none (null). */
  private linksFor(merchant: AuthenticatedMerchant): RefundDestinationLinks | undefined {
    return mayReadDestinationLink(merchant) ? this.links : undefined;
  }

  /** Under the balance row's lock, as a payout: two refunds racing for the last funds never both pass. */
  private async assertBalanceCovers(manager: EntityManager, refund: RefundDraft): Promise<void> {
    const account = LedgerAccounts.merchant(
      refund.merchantId,
      refund.subMerchantId,
      refund.network,
      refund.currency,
    );
    const available = await this.ledger.lockCreditBalance(manager, account);
    if (available.lessThan(refund.amount)) {
      throw new ApiException(
        ErrorCode.InsufficientBalance,
        `Insufficient balance: ${formatAmount(available)} ${refund.currency} available on ${refund.network}, ${formatAmount(refund.amount)} to refund.`,
        'amount',
      );
    }
  }
}

function requireIdempotencyKey(key: string | undefined, endpoint: string): asserts key is string {
  if (key === undefined) {
    throw new ApiException(
      ErrorCode.ParameterMissing,
      `Idempotency-Key is required on ${endpoint}, so a retried request never refunds twice. Send a new UUID v4 per refund.`,
      IDEMPOTENCY_KEY_HEADER,
    );
  }
}

/** With X-Sub-Merchant-Code, only that sub-merchant's records; without, any of the merchant's. */
function inScope(subMerchant: SubMerchantRef | null, ownerSubMerchantId: string | null): boolean {
  return subMerchant === null || subMerchant.id === ownerSubMerchantId;
}
