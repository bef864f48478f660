import Decimal from 'decimal.js';
import { stakeForEnergy } from './tron-sweep-chain';
import { decideTronSweep, tronSweepCostSun, withMargin } from './tron-sweep-policy';
import { NetworkTreasurySettings } from './treasury-settings';

const settings: NetworkTreasurySettings = {
  network: 'TRON',
  treasuryAddress: null,
  sweepDelegate: null,
  hotWalletTarget: {},
  minimumSweep: new Decimal(10),
  maxCostPercent: new Decimal(1),
  forceAfterHours: 24,
  forcedMaxCostPercent: new Decimal(5),
  maxGasPriceGwei: new Decimal(0),
  nativeCoinPrice: new Decimal('0.5'),
  batchSize: 50,
  tronEnergyMarginPercent: new Decimal(10),
  gasTopUp: false,
  retryBackoffSeconds: 60,
};
const now = new Date('2026-11-27T12:00:00Z');
const hoursAgo = (hours: number) => new Date(now.getTime() - hours * 3_600_000);
// Mainnet parameters: 1.1 TRX to activate, 1,000 sun a byte.
const prices = { activationSun: 1_100_000n, bandwidthSun: 1_000n };

describe('TRON sweep policy', () => {
  it('costs an activation the first time and the staking steps bandwidth every time, no energy', () => {
    expect(tronSweepCostSun(true, prices)).toBe(1_700_000n); // 1.1 TRX + 600 bytes
    expect(tronSweepCostSun(false, prices)).toBe(600_000n);
  });

  it('sweeps when the cost in tokens is at most 1 % of the balance, or 5 % once a day old', () => {
    // 1.7 TRX at 0.5 USDT = 0.85 USDT: 85 USDT and more on the threshold.
    expect(decideTronSweep(new Decimal(85), now, 1_700_000n, settings, now)).toMatchObject({
      sweep: true,
      reason: 'threshold',
    });
    expect(decideTronSweep(new Decimal(84), now, 1_700_000n, settings, now)).toMatchObject({
      sweep: false,
      reason: 'too_expensive',
    });
    expect(decideTronSweep(new Decimal(17), hoursAgo(24), 1_700_000n, settings, now)).toMatchObject(
      { sweep: true, reason: 'forced' },
    );
    expect(decideTronSweep(new Decimal(5), now, 600_000n, settings, now)).toMatchObject({
      sweep: false,
      reason: 'below_minimum',
    });
    expect(decideTronSweep(new Decimal(85), now, 1_700_000n, settings, now).estimatedCost).toEqual(
      new Decimal('0.85'),
    );
  });

  it('adds the margin rounded up', () => {
    expect(withMargin(64_285n, new Decimal(10))).toBe(70_714n); // 70,713.5 up
    expect(withMargin(100n, new Decimal(0))).toBe(100n);
  });

  it('lends whole TRX of stake giving at least the energy, at the chain ratio', () => {
    // The fake node's 10 energy per TRX: 70,714 energy takes 7,072 TRX.
    expect(stakeForEnergy(70_714n, { energy: 10n, perStakeSun: 1_000_000n })).toBe(7_072_000_000n);
    // Mainnet-like: TotalEnergyLimit 180e9 over TotalEnergyWeight 19e9 TRX.
    const ratio = { energy: 180_000_000_000n, perStakeSun: 19_000_000_000n * 1_000_000n };
    const stake = stakeForEnergy(70_714n, ratio);
    expect(stake % 1_000_000n).toBe(0n);
    expect((stake / 1_000_000n) * 180_000_000_000n).toBeGreaterThanOrEqual(
      70_714n * 19_000_000_000n,
    );
    expect(() => stakeForEnergy(1n, { energy: 0n, perStakeSun: 0n })).toThrow(/no energy stake/);
  });
});
