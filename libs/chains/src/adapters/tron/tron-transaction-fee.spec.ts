import { parseTransactionFeeSun } from './tron-transaction-fee';

describe('parseTransactionFeeSun', () => {
  it('reads the fee in sun', () => {
    const info = {
      id: 'ab'.repeat(32),
      fee: 13_844_850,
      blockNumber: 7,
      receipt: { energy_fee: 13_499_850, net_fee: 345_000, energy_usage_total: 64_285 },
    };
    expect(parseTransactionFeeSun(info)).toBe(13_844_850n);
  });

  it('is 0 when java-tron leaves the field out (paid with staked resources)', () => {
    expect(parseTransactionFeeSun({ id: 'ab'.repeat(32), blockNumber: 7 })).toBe(0n);
  });

  it('refuses a fee that is not a whole number of sun', () => {
    expect(() => parseTransactionFeeSun({ fee: '100' })).toThrow('fee');
    expect(() => parseTransactionFeeSun({ fee: -1 })).toThrow('fee');
    expect(() => parseTransactionFeeSun({ fee: 1.5 })).toThrow('fee');
    expect(() => parseTransactionFeeSun([])).toThrow('not an object');
  });
});
