import Decimal from 'decimal.js';
import { fromBaseUnits } from '@app/ledger';
import { decideOnCost } from './sweep-cost-policy';
import { SweepDecision } from './sweep-policy';
import { NetworkTreasurySettings } from './treasury-settings';

/**
 * Bytes of a DelegateResourceContract or UnDelegateResourceContract the staking account signs
 * (about 280 with its signature and result): priced as if burnt, the staking account's free
 * bandwidth aside, so the policy overestimates rather than overspends.
 */
export const STAKING_STEP_BYTES = 300n;

/** What the chain charges now, in sun (wallet/getchainparameters). */
export interface TronPrices {
  /** getCreateNewAccountFeeInSystemContract + getCreateAccountFee: activating an address. */
  activationSun: bigint;
  /** getTransactionFee: a byte of bandwidth burnt. */
  bandwidthSun: bigint;
}

/**
 * TRX a TRON sweep of one address burns, in sun: its activation the first time, and the
 * bandwidth of lending and taking back the energy. The energy is lent, not bought: no TRX.
 * The transfer itself uses the address's free bandwidth and the lent energy: nothing.
 */
export function tronSweepCostSun(activates: boolean, prices: TronPrices): bigint {
  const staking = 2n * STAKING_STEP_BYTES * prices.bandwidthSun;
  return staking + (activates ? prices.activationSun : 0n);
}

/** The policy's rule (decideOnCost) over the TRX cost, priced at `nativeCoinPrice`. */
export function decideTronSweep(
  balance: Decimal,
  unsweptSince: Date,
  costSun: bigint,
  settings: NetworkTreasurySettings,
  now: Date,
): SweepDecision {
  const cost = fromBaseUnits(costSun, 6).mul(settings.nativeCoinPrice);
  return decideOnCost(balance, unsweptSince, cost, settings, now);
}

/** `value` raised by `percent` percent, rounded up: a margin over an estimate. */
export function withMargin(value: bigint, percent: Decimal): bigint {
  return BigInt(new Decimal(value.toString()).mul(percent.plus(100)).div(100).ceil().toFixed());
}
