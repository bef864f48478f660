import { opStackFeeGap, receiptBlockHash, receiptFeeWei } from './evm-receipt-fee';

const L1 = { opStack: false };
const OP_STACK = { opStack: true };

describe('receiptFeeWei', () => {
  const receipt = { type: '0x2', gasUsed: '0xa410', effectiveGasPrice: '0x3b9aca07' };
  const execution = 42_000n * 1_000_000_007n;

  it('is gasUsed × effectiveGasPrice on an L1 receipt, exactly', () => {
    expect(receiptFeeWei(receipt, L1)).toBe(execution);
    // A network that does not say: no L1 data fee.
    expect(receiptFeeWei(receipt, {})).toBe(execution);
  });

  it('adds the L1 data fee of an OP-stack receipt', () => {
    const opStack = { ...receipt, l1Fee: '0x1c6bf52634000', l1GasUsed: '0x640' };
    expect(receiptFeeWei(opStack, OP_STACK)).toBe(execution + 500_000_000_000_000n);
    expect(receiptFeeWei({ ...receipt, l1Fee: '0x0' }, OP_STACK)).toBe(execution);
  });

  it('knows no fee of an OP-stack receipt without its l1Fee (review r9b, M3)', () => {
    // Before, absent or null counted as 0: the fee was booked without the L1 data fee, too low.
    expect(receiptFeeWei(receipt, OP_STACK)).toBeNull();
    expect(receiptFeeWei({ ...receipt, l1Fee: null }, OP_STACK)).toBeNull();
    // A receipt without a type is not known to be a deposit's.
    expect(receiptFeeWei({ ...receipt, type: undefined }, OP_STACK)).toBeNull();
  });

  it('takes an OP deposit (type 0x7e) as owing no L1 data fee', () => {
    const deposit = { ...receipt, type: '0x7e', effectiveGasPrice: '0x0' };
    expect(receiptFeeWei(deposit, OP_STACK)).toBe(0n);
    expect(receiptFeeWei({ ...deposit, l1Fee: null }, OP_STACK)).toBe(0n);
  });

  it('counts a missing or null l1Fee as 0 where no L1 data fee is paid', () => {
    expect(receiptFeeWei({ ...receipt, l1Fee: null }, L1)).toBe(execution);
    expect(receiptFeeWei({ ...receipt, l1Fee: '0x64' }, L1)).toBe(execution + 100n);
  });

  it('keeps wei beyond a JS number', () => {
    const large = { gasUsed: '0x1c9c380', effectiveGasPrice: '0xe8d4a51001' };
    expect(receiptFeeWei(large, L1)).toBe(30_000_000n * 1_000_000_000_001n);
  });

  it('guesses nothing: a field missing or malformed gives null', () => {
    for (const network of [L1, OP_STACK]) {
      expect(receiptFeeWei({ gasUsed: '0x5208', l1Fee: '0x1' }, network)).toBeNull();
      expect(receiptFeeWei({ ...receipt, gasUsed: 21000, l1Fee: '0x1' }, network)).toBeNull();
      expect(receiptFeeWei({ ...receipt, l1Fee: '12' }, network)).toBeNull();
      expect(receiptFeeWei({ ...receipt, l1Fee: 100 }, network)).toBeNull();
      expect(receiptFeeWei(null, network)).toBeNull();
    }
  });

  it('knows no fee of an OP-stack receipt charging an operator fee, whose formula changed between forks (review r9b, L2)', () => {
    const whole = { ...receipt, l1Fee: '0x64' };
    for (const field of ['operatorFeeScalar', 'operatorFeeConstant']) {
      // 0 (Base and OP Mainnet today) or absent: nothing charged, nothing added.
      expect(receiptFeeWei({ ...whole, [field]: '0x0' }, OP_STACK)).toBe(execution + 100n);
      expect(receiptFeeWei({ ...whole, [field]: null }, OP_STACK)).toBe(execution + 100n);
      // Nonzero (Isthmus or Jovian, the receipt does not say) or malformed: not guessed.
      expect(receiptFeeWei({ ...whole, [field]: '0x1' }, OP_STACK)).toBeNull();
      expect(opStackFeeGap({ ...whole, [field]: '0x1' }, OP_STACK)).toMatch(/operator fee/);
      expect(receiptFeeWei({ ...whole, [field]: 7 }, OP_STACK)).toBeNull();
      // Not an OP-stack network: no such fee.
      expect(receiptFeeWei({ ...whole, [field]: '0x1' }, L1)).toBe(execution + 100n);
    }
    expect(opStackFeeGap(receipt, OP_STACK)).toMatch(/l1Fee/);
    expect(opStackFeeGap(whole, OP_STACK)).toBeNull();
    expect(opStackFeeGap(receipt, L1)).toBeNull();
  });

  it('reads the block hash in lowercase', () => {
    expect(receiptBlockHash({ blockHash: '0xABCD' })).toBe('0xabcd');
    expect(receiptBlockHash({})).toBeNull();
  });
});
