import {
  delegateMismatches,
  failureCounts,
  foreignDestinations,
  provenBlock,
  readableAt,
} from './sweep-safety';

const SWEEPER = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const HOT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const TREASURY = '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65';
const USDT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const USDC = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';

describe('sweep safety decisions', () => {
  it('proves emptiness only at a confirmed block, never at the unconfirmed head', () => {
    expect(provenBlock(100, 12)).toBe(89);
    expect(provenBlock(100, 1)).toBe(100);
    expect(provenBlock(100, 0)).toBe(100);
  });

  it('lets an address with a transfer past the read wait alone, the others are read', () => {
    const candidates = [
      { address: 'a', pendingBlock: 10 },
      { address: 'b', pendingBlock: 95 },
      { address: 'c', pendingBlock: 89 },
    ];
    expect(readableAt(candidates, 89).map((c) => c.address)).toEqual(['a', 'c']);
  });

  it('counts no failure when no item of the batch was swept (a paused token)', () => {
    expect(
      failureCounts([
        { address: 'a', status: 'Failed' },
        { address: 'b', status: 'Failed' },
      ]),
    ).toEqual({ counted: [], reset: [] });
  });

  it('counts a lone failure when the token blacklists the address', () => {
    const outcomes = [{ address: '0xAbC', status: 'Failed' as const }];
    expect(failureCounts(outcomes, new Set(['0xabc']))).toEqual({ counted: ['0xAbC'], reset: [] });
    expect(failureCounts(outcomes, new Set())).toEqual({ counted: [], reset: [] });
  });

  it('counts a failure beside a swept address, and resets the swept ones', () => {
    expect(
      failureCounts([
        { address: 'a', status: 'Failed' },
        { address: 'b', status: 'Swept' },
        { address: 'c', status: 'Skipped' },
      ]),
    ).toEqual({ counted: ['a'], reset: ['b'] });
  });

  it('accepts only a delegate whose immutables are this configuration', () => {
    const expected = { sweeper: SWEEPER, hotWallet: HOT, treasury: TREASURY, tokens: [USDT, USDC] };
    const read = { sweeper: SWEEPER, hotWallet: HOT, treasury: TREASURY, tokens: [USDC, USDT] };
    expect(delegateMismatches(read, expected)).toEqual([]);
    expect(delegateMismatches({ ...read, hotWallet: SWEEPER }, expected)).toHaveLength(1);
    expect(delegateMismatches({ ...read, treasury: HOT }, expected)).toHaveLength(1);
    expect(delegateMismatches({ ...read, sweeper: HOT }, expected)).toHaveLength(1);
    expect(delegateMismatches({ ...read, tokens: [USDT] }, expected)).toHaveLength(1);
    expect(delegateMismatches(read, { ...expected, hotWallet: null })).toHaveLength(1);
    expect(delegateMismatches(null, expected)).toHaveLength(1);
  });

  it('books no Swept event whose destination is not the sweep destination', () => {
    const swept = [{ destination: HOT.toLowerCase() }, { destination: TREASURY }];
    expect(foreignDestinations(swept, HOT)).toEqual([{ destination: TREASURY }]);
  });
});
