import Decimal from 'decimal.js';
import { decideSweep, destinationFor, gasPriceAllowed, SweepCandidate } from './sweep-policy';
import { NetworkTreasurySettings } from './treasury-settings';

const settings: NetworkTreasurySettings = {
  network: 'ETHEREUM',
  treasuryAddress: null,
  sweepDelegate: null,
  hotWalletTarget: {},
  minimumSweep: new Decimal(50),
  maxCostPercent: new Decimal(1),
  forceAfterHours: 24,
  forcedMaxCostPercent: new Decimal(5),
  maxGasPriceGwei: new Decimal(30),
  nativeCoinPrice: new Decimal(4000),
  batchSize: 50,
  tronEnergyMarginPercent: new Decimal(10),
  gasTopUp: false,
  retryBackoffSeconds: 60,
};
const now = new Date('2026-11-27T12:00:00Z');
const GWEI = 1_000_000_000n;

function candidate(balance: string, hoursOld = 1, needsAuthorization = true): SweepCandidate {
  return {
    address: '0x0000000000000000000000000000000000000001',
    balance: new Decimal(balance),
    unsweptSince: new Date(now.getTime() - hoursOld * 3_600_000),
    needsAuthorization,
  };
}

describe('sweep policy', () => {
  // 45,600 gas at 1 gwei and 4,000 tokens per ETH: 0.1824 tokens.
  it('sweeps at the minimum when the cost is at most 1 % of the balance', () => {
    const decision = decideSweep(candidate('50'), GWEI, 50, settings, now);
    expect(decision).toEqual({
      sweep: true,
      reason: 'threshold',
      estimatedCost: new Decimal('0.1824'),
    });
  });

  it('waits below the minimum, then forces after 24 h if the cost is at most 5 %', () => {
    expect(decideSweep(candidate('10'), GWEI, 50, settings, now)).toMatchObject({
      sweep: false,
      reason: 'below_minimum',
    });
    expect(decideSweep(candidate('10', 24), GWEI, 50, settings, now)).toMatchObject({
      sweep: true,
      reason: 'forced',
    });
    // 0.1824 is more than 5 % of 3 tokens: never worth it, even late.
    expect(decideSweep(candidate('3', 48), GWEI, 50, settings, now)).toMatchObject({
      sweep: false,
      reason: 'below_minimum',
    });
  });

  it('finds a large balance too expensive when gas is dear, and an empty one never eligible', () => {
    expect(decideSweep(candidate('60'), 10n * GWEI, 50, settings, now)).toMatchObject({
      sweep: false,
      reason: 'too_expensive',
    });
    expect(decideSweep(candidate('0', 100), GWEI, 50, settings, now)).toMatchObject({
      sweep: false,
      reason: 'empty',
    });
  });

  it('counts an already delegated address cheaper', () => {
    const delegated = decideSweep(candidate('50', 1, false), GWEI, 50, settings, now);
    expect(delegated.estimatedCost.toFixed()).toBe('0.1024');
  });

  it('defers above the gas price cap', () => {
    expect(gasPriceAllowed(30n * GWEI, settings)).toBe(true);
    expect(gasPriceAllowed(30n * GWEI + 1n, settings)).toBe(false);
  });

  it('fills the hot wallet to its target, then the treasury', () => {
    expect(destinationFor(new Decimal(99), new Decimal(100), true)).toBe('hot_wallet');
    expect(destinationFor(new Decimal(100), new Decimal(100), true)).toBe('treasury');
    expect(destinationFor(new Decimal(1e9), undefined, true)).toBe('hot_wallet');
    expect(destinationFor(new Decimal(1e9), new Decimal(1), false)).toBe('hot_wallet');
  });
});
