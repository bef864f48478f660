import { receiptBlockHash, receiptFeeWei } from './evm-receipt-fee';

describe('receiptFeeWei', () => {
  const receipt = { gasUsed: '0xa410', effectiveGasPrice: '0x3b9aca07' };

  it('is gasUsed × effectiveGasPrice on an L1 receipt, exactly', () => {
    expect(receiptFeeWei(receipt)).toBe(42_000n * 1_000_000_007n);
  });

  it('adds the L1 data fee of an OP-stack receipt', () => {
    const opStack = { ...receipt, l1Fee: '0x1c6bf52634000', l1GasUsed: '0x640' };
    expect(receiptFeeWei(opStack)).toBe(42_000n * 1_000_000_007n + 500_000_000_000_000n);
    expect(receiptFeeWei({ ...receipt, l1Fee: null })).toBe(42_000n * 1_000_000_007n);
  });

  it('keeps wei beyond a JS number', () => {
    const large = { gasUsed: '0x1c9c380', effectiveGasPrice: '0xe8d4a51001' };
    expect(receiptFeeWei(large)).toBe(30_000_000n * 1_000_000_000_001n);
  });

  it('guesses nothing: a field missing or malformed gives null', () => {
    expect(receiptFeeWei({ gasUsed: '0x5208' })).toBeNull();
    expect(receiptFeeWei({ ...receipt, gasUsed: 21000 })).toBeNull();
    expect(receiptFeeWei({ ...receipt, l1Fee: '12' })).toBeNull();
    expect(receiptFeeWei(null)).toBeNull();
  });

  it('reads the block hash in lowercase', () => {
    expect(receiptBlockHash({ blockHash: '0xABCD' })).toBe('0xabcd');
    expect(receiptBlockHash({})).toBeNull();
  });
});
