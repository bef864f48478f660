import Decimal from 'decimal.js';
import { SweepDecision } from './sweep-policy';
import { NetworkTreasurySettings } from './treasury-settings';

/**
 * The policy's rule over a cost already in tokens (docs/treasury.md, "Policy"), for sweeps whose
 * cost is not the EIP-7702 batch's share (TRON's steps, an EVM gas top-up): at least
 * minimumSweep and a cost at most maxCostPercent of the balance; once forceAfterHours old,
 * whatever it holds if the cost is at most forcedMaxCostPercent.
 */
export function decideOnCost(
  balance: Decimal,
  unsweptSince: Date,
  cost: Decimal,
  settings: NetworkTreasurySettings,
  now: Date,
): SweepDecision {
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
