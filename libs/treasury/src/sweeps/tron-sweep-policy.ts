import Decimal from 'decimal.js';
import { fromBaseUnits } from '@app/ledger';
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

/**
 * The EVM policy's rule over the TRON cost (docs/treasury.md, "Policy"): at least minimumSweep
 * and a cost at most maxCostPercent of the balance; once forceAfterHours old, whatever it holds
 * if the cost is at most forcedMaxCostPercent. The cost in tokens at `nativeCoinPrice`.
 */
export function decideTronSweep(
  balance: Decimal,
  unsweptSince: Date,
  costSun: bigint,
  settings: NetworkTreasurySettings,
  now: Date,
): SweepDecision {
  const cost = fromBaseUnits(costSun, 6).mul(settings.nativeCoinPrice);
  if (balance.lte(0)) return { sweep: false, reason: 'empty', estimatedCost: cost };
  const share = (percent: Decimal) => balance.mul(percent).div(100);
  if (balance.gte(settings.minimumSweep) && cost.lte(share(settings.maxCostPercent))) {
    return { sweep: true, reason: 'threshold', estimatedCost: cost };
  }
  const ageMs = now.getTime() - unsweptSince.getTime();
  if (
    ageMs >= settings.forceAfterHours * 3_600_000 &&
    cost.lte(share(settings.forcedMaxCostPercent))
  ) {
    return { sweep: true, reason: 'forced', estimatedCost: cost };
  }
  const reason = balance.lt(settings.minimumSweep) ? 'below_minimum' : 'too_expensive';
  return { sweep: false, reason, estimatedCost: cost };
}

/** `value` raised by `percent` percent, rounded up: a margin over an estimate. */
export function withMargin(value: bigint, percent: Decimal): bigint {
  return BigInt(new Decimal(value.toString()).mul(percent.plus(100)).div(100).ceil().toFixed());
}
