import Decimal from 'decimal.js';
import { formatUnits } from 'ethers';
import { isDelegatedTo } from '@app/chains/sweeps/evm-sweep-delegation';
import { PendingDepositAddress } from './sweep-planner.repository';
import { decideSweep, SweepCandidate, SweepDecision } from './sweep-policy';
import { NetworkTreasurySettings } from './treasury-settings';

export interface AssessedAddress extends PendingDepositAddress {
  balanceBaseUnits: bigint;
  needsAuthorization: boolean;
  decision: SweepDecision;
}

export interface TokenAssessment {
  /** The confirmed block the balances were read at (none when nothing was read). */
  block?: number;
  /** Pending addresses read this pass... */
  candidates: number;
  /** ...of which found empty (cleared)... */
  emptied: number;
  /** ...and those holding tokens, with the policy's word on each. */
  funded: AssessedAddress[];
}

/**
 * The policy's word on one funded address, from what EvmSweeper.assess read of it (its balance
 * and code). It reads and writes nothing, so it lives apart from the sweeper, which does the
 * reads and the clearing around it.
 */
export function assessFundedAddress(
  candidate: PendingDepositAddress,
  balanceBaseUnits: bigint,
  code: string,
  decimals: number,
  settings: NetworkTreasurySettings,
  gasPrice: bigint,
  now: Date,
): AssessedAddress {
  const needsAuthorization = !isDelegatedTo(code, settings.sweepDelegate!);
  const policyCandidate: SweepCandidate = {
    address: candidate.address,
    balance: new Decimal(formatUnits(balanceBaseUnits, decimals)),
    unsweptSince: candidate.pendingSince,
    needsAuthorization,
  };
  const decision = decideSweep(policyCandidate, gasPrice, settings.batchSize, settings, now);
  return { ...candidate, balanceBaseUnits, needsAuthorization, decision };
}
