import { topUpValue } from './evm-top-up-value';

describe('gas top-up value', () => {
  const needed = 65_000n * 30_000_000_000n;

  it('tops up the whole gas when the address holds only coin someone else sent, even more than the gas', () => {
    expect(topUpValue(needed, needed * 2n, 0n)).toBe(needed);
  });

  it('subtracts what is left of our own earlier top-up', () => {
    expect(topUpValue(needed, needed / 2n, needed / 2n)).toBe(needed / 2n);
  });

  it('counts our coin only as far as it is still on the address', () => {
    expect(topUpValue(needed, 1_000n, needed)).toBe(needed - 1_000n);
  });

  it('is zero (transfer alone, never skipped) when our own coin there covers the gas', () => {
    expect(topUpValue(needed, needed * 3n, needed * 2n)).toBe(0n);
  });
});
