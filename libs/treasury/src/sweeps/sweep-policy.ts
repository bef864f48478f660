import Decimal from 'decimal.js';
import { NetworkTreasurySettings } from './treasury-settings';

/**
 * Gas of one address in a batch: the EIP-7702 authorization (25,000 for an authority with no
 * nonce yet) plus the call into the account and the token transfer; without the authorization
 * (already delegated) only the latter. The transaction's own 21,000 is shared by the batch.
 * Estimates for the policy only; the books take the receipt's exact fee.
 */
export const GAS_PER_ADDRESS_WITH_AUTHORIZATION = 45_000n;
export const GAS_PER_ADDRESS_DELEGATED = 25_000n;
export const GAS_PER_BATCH = 30_000n;

const WEI_PER_COIN = new Decimal(10).pow(18);
const WEI_PER_GWEI = 1_000_000_000n;

export interface SweepCandidate {
  address: string;
  /** On-chain token balance, whole tokens. */
  balance: Decimal;
  /** When the oldest transfer not covered by a sweep was confirmed. */
  unsweptSince: Date;
  /** False once the address has delegated to the sweep delegate. */
  needsAuthorization: boolean;
}

export type SweepDecision =
  | { sweep: true; reason: 'threshold' | 'forced'; estimatedCost: Decimal }
  | {
      sweep: false;
      reason: 'empty' | 'below_minimum' | 'too_expensive';
      estimatedCost: Decimal;
    };

/** What sweeping the address would cost in tokens at this gas price (its share of a batch). */
export function estimatedCost(
  candidate: Pick<SweepCandidate, 'needsAuthorization'>,
  gasPriceWei: bigint,
  batchSize: number,
  settings: Pick<NetworkTreasurySettings, 'nativeCoinPrice'>,
): Decimal {
  const own = candidate.needsAuthorization
    ? GAS_PER_ADDRESS_WITH_AUTHORIZATION
    : GAS_PER_ADDRESS_DELEGATED;
  const gas = own + GAS_PER_BATCH / BigInt(Math.max(1, batchSize));
  return new Decimal((gas * gasPriceWei).toString())
    .div(WEI_PER_COIN)
    .mul(settings.nativeCoinPrice);
}

/**
 * Sweep when the address holds at least the minimum and its cost is at most maxCostPercent of it;
 * once its oldest unswept transfer is forceAfterHours old, whatever it holds if the cost is at
 * most forcedMaxCostPercent. A gas price above the cap defers every address (gasPriceAllowed).
 */
export function decideSweep(
  candidate: SweepCandidate,
  gasPriceWei: bigint,
  batchSize: number,
  settings: NetworkTreasurySettings,
  now: Date,
): SweepDecision {
  const cost = estimatedCost(candidate, gasPriceWei, batchSize, settings);
  if (candidate.balance.lte(0)) return { sweep: false, reason: 'empty', estimatedCost: cost };
  const share = (percent: Decimal) => candidate.balance.mul(percent).div(100);
  if (candidate.balance.gte(settings.minimumSweep) && cost.lte(share(settings.maxCostPercent))) {
    return { sweep: true, reason: 'threshold', estimatedCost: cost };
  }
  const ageMs = now.getTime() - candidate.unsweptSince.getTime();
  if (
    ageMs >= settings.forceAfterHours * 3_600_000 &&
    cost.lte(share(settings.forcedMaxCostPercent))
  ) {
    return { sweep: true, reason: 'forced', estimatedCost: cost };
  }
  const reason = candidate.balance.lt(settings.minimumSweep) ? 'below_minimum' : 'too_expensive';
  return { sweep: false, reason, estimatedCost: cost };
}

/** The network's gas price cap (maxGasPriceGwei) in wei. */
export function gasPriceCapWei(settings: Pick<NetworkTreasurySettings, 'maxGasPriceGwei'>): bigint {
  return BigInt(settings.maxGasPriceGwei.mul(WEI_PER_GWEI.toString()).floor().toFixed());
}

/** Above the network's cap sweeps wait for cheaper gas: deferred, never failed. */
export function gasPriceAllowed(gasPriceWei: bigint, settings: NetworkTreasurySettings): boolean {
  return gasPriceWei <= gasPriceCapWei(settings);
}

/**
 * A sweep's bid never passes the cap: the node's suggestion (twice the base fee plus the tip)
 * may, when gas is just under it, and the sweep would then pay above the cap should the base fee
 * rise before it is mined. Capped, it waits in the pool instead, as payouts do.
 */
export function cappedSweepFees<
  Fees extends { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
>(
  suggested: Fees,
  settings: Pick<NetworkTreasurySettings, 'maxGasPriceGwei'>,
): { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } {
  const cap = gasPriceCapWei(settings);
  const maxFeePerGas = suggested.maxFeePerGas < cap ? suggested.maxFeePerGas : cap;
  const maxPriorityFeePerGas =
    suggested.maxPriorityFeePerGas < maxFeePerGas ? suggested.maxPriorityFeePerGas : maxFeePerGas;
  return { maxFeePerGas, maxPriorityFeePerGas };
}

/**
 * Hot wallet while it is below its target, the treasury once it has reached it. Decided per batch
 * (a batch has one destination) from the hot wallet's balance plus what live sweeps are already
 * bringing it, so the hot wallet overshoots its target by at most one batch.
 */
export function destinationFor(
  hotWalletLevel: Decimal,
  target: Decimal | undefined,
  hasTreasury: boolean,
): 'hot_wallet' | 'treasury' {
  if (!hasTreasury || target === undefined) return 'hot_wallet';
  return hotWalletLevel.lt(target) ? 'hot_wallet' : 'treasury';
}
