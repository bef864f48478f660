import { Injectable } from '@nestjs/common';
import Decimal from 'decimal.js';
import { EntityManager } from 'typeorm';
import { ID_PREFIX, newId } from '@app/common';
import { NetworkName, NetworkRegistry } from '@app/chains';
import { PayoutRules, PayoutsRepository } from '@app/payouts';
import { RefundRecord } from './refund.types';

/** The internal payout created for a refund; `sendNow` unless it awaits an operator's review. */
export interface RefundPayout {
  payoutId: string;
  sendNow: boolean;
}

/**
 * A refund is sent by the payout machinery: one internal payout per refund (payouts.refund_id,
 * unique), signed, journaled, tracked and completed by the payout worker with all its
 * exactly-once guarantees. It goes through the same review as a merchant's payout: a refund is
 * money leaving to an address someone typed.
 */
@Injectable()
export class RefundPayouts {
  constructor(
    private readonly networks: NetworkRegistry,
    private readonly payouts: PayoutsRepository,
    private readonly rules: PayoutRules,
  ) {}

  /** The network's fee for sending a refund: the payouts' fixed network fee (PAYOUT_NETWORK_FEES). */
  networkFee(network: NetworkName): Decimal {
    return this.rules.feeRule(network, null).fixed;
  }

  /**
   * In the caller's transaction, which has just made the refund `Pending` with its address: the
   * payout that sends it. Its amount is already held (`refund:<id>:hold`), so the payout posts
   * no hold of its own; its completion or release moves that held amount as any payout's does.
   */
  async create(
    manager: EntityManager,
    refund: RefundRecord,
    toAddress: string,
    notBefore: Date | null = null,
  ): Promise<RefundPayout> {
    const network = refund.network as NetworkName;
    const token = this.networks.token(network, refund.currency as never);
    if (!token) throw new Error(`Refund ${refund.id}: no ${refund.currency} on ${network}`);
    const amount = new Decimal(refund.amount);
    const policy = await this.payouts.merchantPolicy(manager, refund.merchant_id);
    const unpaidDestination =
      policy.reviewNewDestinations &&
      !(await this.payouts.hasPaid(manager, refund.merchant_id, network, toAddress));
    const reviewReason = this.rules.reviewReason(
      amount,
      network,
      refund.currency,
      unpaidDestination,
    );
    const payout = await this.payouts.insert(manager, {
      id: newId(ID_PREFIX.payout),
      merchantId: refund.merchant_id,
      subMerchantId: refund.sub_merchant_id,
      livemode: refund.livemode,
      amount: amount.toFixed(),
      fee: new Decimal(refund.fee).toFixed(),
      netAmount: new Decimal(refund.net_amount).toFixed(),
      feePercent: '0',
      feeFixed: new Decimal(refund.fee).toFixed(),
      currency: refund.currency,
      network,
      chainFamily: refund.chain_family,
      tokenContract: token.contract,
      tokenDecimals: token.decimals,
      toAddress,
      description: `Refund ${refund.id}`,
      metadata: null,
      reviewReason,
      refundId: refund.id,
      notBefore,
    });
    // Waiting out a delay, it is enqueued by the worker's reconciler once due.
    return { payoutId: payout.id, sendNow: reviewReason === null && notBefore === null };
  }
}
