import { Injectable } from '@nestjs/common';
import Decimal from 'decimal.js';
import { EntityManager } from 'typeorm';
import { ApiException, ErrorCode } from '@app/common';
import { AuthenticatedMerchant } from '@app/auth';
import { Currency, NetworkConfig, NetworkName, NetworkRegistry, TokenConfig } from '@app/chains';
import { SubMerchantRef, SubMerchantsService } from '@app/sub-merchants';
import { ReviewReason } from './payout.types';
import { MerchantPayoutPolicy, PayoutsRepository } from './payouts.repository';
import { PayoutFeeRule, PayoutRules } from './rules/payout-rules';

/** What a payout request names, before anything is read under a lock. */
export interface PayoutRequestInput {
  amount: string;
  currency: Currency;
  network: NetworkName;
}

export interface CheckedPayoutRequest {
  subMerchant: SubMerchantRef | null;
  network: NetworkConfig;
  token: TokenConfig;
  amount: Decimal;
}

/** What the payout costs and whether an operator reviews it, as of this transaction. */
export interface PayoutTerms {
  rule: PayoutFeeRule;
  fee: Decimal;
  net: Decimal;
  /** No completed payout of the merchant's to this address on this network yet. */
  firstPayoutToIt: boolean;
  reviewReasons: ReviewReason[];
  /** What the payout is stored with: the first review reason. */
  reviewReason: ReviewReason | null;
}

/**
 * The checks and terms a payout creation applies, shared with the quote and the batch so the
 * three can never disagree (docs/payouts.md, "Quotes").
 */
@Injectable()
export class PayoutTermsService {
  constructor(
    private readonly networks: NetworkRegistry,
    private readonly rules: PayoutRules,
    private readonly payouts: PayoutsRepository,
    private readonly subMerchants: SubMerchantsService,
  ) {}

  /** The sub-merchant, the network's token and the amount's bounds; throws what a creation answers. */
  async checkRequest(
    merchant: AuthenticatedMerchant,
    input: PayoutRequestInput,
    subMerchantCode: string | undefined,
  ): Promise<CheckedPayoutRequest> {
    const subMerchant = await this.subMerchants.resolveForCreation(merchant, subMerchantCode);
    return { subMerchant, ...this.checkToken(input) };
  }

  checkToken(input: PayoutRequestInput): Omit<CheckedPayoutRequest, 'subMerchant'> {
    const network = this.networks.get(input.network);
    const token = this.networks.token(input.network, input.currency);
    if (!token) {
      throw new ApiException(
        ErrorCode.UnsupportedNetworkCurrency,
        `${input.currency} is not available on ${input.network} (${network.displayName}).`,
        'currency',
      );
    }
    const amount = new Decimal(input.amount);
    this.rules.assertAmountInBounds(amount);
    return { network, token, amount };
  }

  /**
   * Fee and review, read in the caller's transaction. `alwaysReadHistory`: the quote reports
   * whether the destination was paid before even when the merchant's policy does not review it.
   */
  async terms(
    manager: EntityManager,
    merchantId: string,
    input: PayoutRequestInput,
    amount: Decimal,
    toAddress: string | null,
    alwaysReadHistory = false,
  ): Promise<PayoutTerms> {
    const policy = await this.payouts.merchantPolicy(manager, merchantId);
    // The fee first: an amount the fee would eat is refused before anything else is read.
    const rule = this.rules.feeRule(input.network, policy.payoutFeePercent);
    this.rules.fee(amount, rule);
    const readHistory = policy.reviewNewDestinations || alwaysReadHistory;
    const firstPayoutToIt =
      readHistory &&
      (toAddress === null ||
        !(await this.payouts.hasPaid(manager, merchantId, input.network, toAddress)));
    return this.termsUnder(policy, input, amount, firstPayoutToIt);
  }

  /**
   * The terms under a policy already read, for a destination whose history is known (a batch
   * reads both once for all its items). Throws the fee's refusal as a creation does.
   */
  termsUnder(
    policy: MerchantPayoutPolicy,
    input: PayoutRequestInput,
    amount: Decimal,
    firstPayoutToIt: boolean,
  ): PayoutTerms {
    const { rule, fee, net } = this.rules.fee(
      amount,
      this.rules.feeRule(input.network, policy.payoutFeePercent),
    );
    const reviewReasons = this.rules.reviewReasons(
      amount,
      input.network,
      input.currency,
      policy.reviewNewDestinations && firstPayoutToIt,
    );
    return {
      rule,
      fee,
      net,
      firstPayoutToIt,
      reviewReasons,
      reviewReason: reviewReasons[0] ?? null,
    };
  }
}
