import { Inject, Injectable } from '@nestjs/common';
import Decimal from 'decimal.js';
import { APP_CONFIG, AppConfig, ApiException, formatAmount } from '@app/common';
import { NetworkName } from '@app/chains';
import { ReviewReason } from '../payout.types';

/**
 * Fixed fee per payout by network, in the token: roughly what the transfer costs us in gas at
 * busy times (an Ethereum ERC-20 transfer is dollars, the L2s cents). PAYOUT_NETWORK_FEES overrides.
 */
export const DEFAULT_NETWORK_FEES: Record<NetworkName, string> = {
  TRON: '1',
  BSC: '0.3',
  ETHEREUM: '3',
  POLYGON: '0.1',
  ARBITRUM: '0.2',
  BASE: '0.1',
  OPTIMISM: '0.1',
};

export const FEE_FRACTION_DIGITS = 6;

export interface PayoutFeeRule {
  percent: Decimal;
  fixed: Decimal;
}

export interface PayoutFee {
  rule: PayoutFeeRule;
  fee: Decimal;
  net: Decimal;
}

/** Amount bounds, fees and review thresholds, from configuration. */
@Injectable()
export class PayoutRules {
  private readonly min: Decimal;
  private readonly max: Decimal;
  private readonly defaultPercent: Decimal;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.min = new Decimal(config.payouts.minAmount);
    this.max = new Decimal(config.payouts.maxAmount);
    this.defaultPercent = new Decimal(config.payouts.feePercent);
  }

  assertAmountInBounds(amount: Decimal): void {
    if (amount.lessThan(this.min) || amount.greaterThan(this.max)) {
      throw ApiException.invalid(
        'amount',
        `amount must be between ${formatAmount(this.min)} and ${formatAmount(this.max)} per payout.`,
      );
    }
  }

  /** The rule in force now: the network's fixed fee plus the merchant's percent (or the default). */
  feeRule(network: NetworkName, merchantPercent: string | null): PayoutFeeRule {
    const fixed = this.config.payouts.networkFees[network] ?? DEFAULT_NETWORK_FEES[network];
    return {
      fixed: new Decimal(fixed),
      percent: merchantPercent === null ? this.defaultPercent : new Decimal(merchantPercent),
    };
  }

  /** fee = fixed + amount × percent, rounded half-up to 6 digits; the net must stay positive. */
  fee(amount: Decimal, rule: PayoutFeeRule): PayoutFee {
    const fee = amount
      .times(rule.percent)
      .dividedBy(100)
      .plus(rule.fixed)
      .toDecimalPlaces(FEE_FRACTION_DIGITS, Decimal.ROUND_HALF_UP);
    const net = amount.minus(fee);
    if (net.lessThanOrEqualTo(0)) {
      throw ApiException.invalid(
        'amount',
        `amount must be greater than the payout fee of ${formatAmount(fee)}; the recipient would receive nothing.`,
      );
    }
    return { rule, fee, net };
  }

  reviewThreshold(network: string, currency: string): Decimal {
    const pair = this.config.payouts.reviewThresholds[`${network}:${currency}`];
    return new Decimal(pair ?? this.config.payouts.reviewThreshold);
  }

  /** The one reason a payout is stored with: the first of reviewReasons (the amount wins). */
  reviewReason(
    amount: Decimal,
    network: string,
    currency: string,
    isUnpaidDestination: boolean,
  ): ReviewReason | null {
    return this.reviewReasons(amount, network, currency, isUnpaidDestination)[0] ?? null;
  }

  /** Every reason an operator would review this payout for, most important first. */
  reviewReasons(
    amount: Decimal,
    network: string,
    currency: string,
    isUnpaidDestination: boolean,
  ): ReviewReason[] {
    const reasons: ReviewReason[] = [];
    if (amount.greaterThan(this.reviewThreshold(network, currency)))
      reasons.push('amount_above_threshold');
    if (isUnpaidDestination) reasons.push('new_destination');
    return reasons;
  }
}
