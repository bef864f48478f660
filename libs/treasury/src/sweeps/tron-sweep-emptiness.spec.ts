import { provenEmpty } from './tron-sweep-emptiness';

describe('TRON: which zero balances prove an address empty', () => {
  const candidates = [
    { address: 'TA', pendingBlock: 100 },
    { address: 'TB', pendingBlock: 130 },
    { address: 'TC', pendingBlock: 90 },
  ];

  it('clears only zero solidity reads whose solid head is at or past the newest known transfer', () => {
    const proven = provenEmpty(candidates, {
      solidBefore: 120,
      solidAfter: 121,
      balances: [0n, 0n, 5n],
    });
    expect(proven.empty.map((candidate) => candidate.address)).toEqual(['TA']);
    expect(proven.block).toBe(120);
  });

  it('clears nothing when the solid head read after is older (another backend answered)', () => {
    const proven = provenEmpty(candidates, {
      solidBefore: 120,
      solidAfter: 80,
      balances: [0n, 0n, 0n],
    });
    expect(proven.empty).toEqual([]);
  });

  it('clears nothing on a solid head below every transfer (a lagging solidity node)', () => {
    const proven = provenEmpty(candidates, {
      solidBefore: 60,
      solidAfter: 60,
      balances: [0n, 0n, 0n],
    });
    expect(proven.empty).toEqual([]);
  });
});
