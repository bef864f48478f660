import { ChainError } from '../rpc/chain-error';
import { ReceiptFeeUnknown } from '../adapters/evm/receipts-without-fee';
import {
  BlockHeader,
  BlockReceiptsRefused,
  parseBlockHeader,
  parseReceipt,
  receiptInBlock,
  receiptsOfBlock,
} from './evm-block-receipts';

const hex = (byte: string) => `0x${byte.repeat(32)}`;
const BLOCK = hex('aa');
const PARENT = hex('bb');
const [TX1, TX2, TX3] = [hex('01'), hex('02'), hex('03')];
const ETHEREUM = { name: 'ETHEREUM' as const };
const BASE = { name: 'BASE' as const, opStack: true };

const header: BlockHeader = {
  number: 16,
  hash: BLOCK,
  parentHash: PARENT,
  transactionHashes: [TX1, TX2, TX3],
};

function receipt(txHash: string, fields: Record<string, unknown> = {}) {
  return {
    transactionHash: txHash,
    blockHash: BLOCK,
    blockNumber: '0x10',
    status: '0x1',
    gasUsed: '0x5208',
    effectiveGasPrice: '0x3b9aca00',
    ...fields,
  };
}

describe('parseBlockHeader', () => {
  it('keeps the hash, the parent and the transactions in order, in lowercase', () => {
    const raw = {
      number: '0x10',
      hash: BLOCK.toUpperCase().replace('0X', '0x'),
      parentHash: PARENT,
      transactions: [TX1, { hash: TX2 }, TX3],
    };
    expect(parseBlockHeader(raw, 16, 'ETHEREUM')).toEqual(header);
  });

  it('answers null for a block the node lacks, and refuses another or a malformed one', () => {
    expect(parseBlockHeader(null, 16, 'ETHEREUM')).toBeNull();
    const raw = { number: '0x11', hash: BLOCK, parentHash: PARENT, transactions: [] };
    expect(() => parseBlockHeader(raw, 16, 'ETHEREUM')).toThrow(ChainError);
    expect(() =>
      parseBlockHeader({ ...raw, number: '0x10', transactions: ['0x12'] }, 16, 'ETHEREUM'),
    ).toThrow(/valid hash/);
    expect(() =>
      parseBlockHeader({ ...raw, number: '0x10', transactions: undefined }, 16, 'ETHEREUM'),
    ).toThrow(/transaction list/);
  });
});

describe('parseReceipt', () => {
  it('reads the status, the block and the fee of one answer', () => {
    expect(parseReceipt(receipt(TX1, { status: '0x0' }), ETHEREUM)).toEqual({
      txHash: TX1,
      blockHash: BLOCK,
      blockNumber: 16,
      succeeded: false,
      feeBaseUnits: 21_000n * 1_000_000_000n,
    });
  });

  it('takes a receipt without a block for none, and guesses no status or fee', () => {
    expect(parseReceipt(null, ETHEREUM)).toBeNull();
    expect(parseReceipt(receipt(TX1, { blockHash: null, blockNumber: null }), ETHEREUM)).toBe(null);
    expect(() => parseReceipt(receipt(TX1, { status: undefined }), ETHEREUM)).toThrow(/status/);
    expect(() => parseReceipt(receipt(TX1, { gasUsed: undefined }), ETHEREUM)).toThrow(/gasUsed/);
  });

  it('adds the L1 data fee on an OP-stack network, and guesses none (review r9b, M3)', () => {
    const l1Fee = '0x2386f26fc10000';
    expect(parseReceipt(receipt(TX1, { l1Fee }), BASE)?.feeBaseUnits).toBe(
      21_000n * 1_000_000_000n + 10n ** 16n,
    );
    // Absent or null: the L1 data fee is not known, so neither is the fee. Before, it was 0.
    expect(() => parseReceipt(receipt(TX1), BASE)).toThrow(/l1Fee/);
    expect(() => parseReceipt(receipt(TX1, { l1Fee: null }), BASE)).toThrow(ChainError);
    // Transient: another RPC URL may answer it whole (before, permanent: none was asked).
    let refused: unknown;
    try {
      parseReceipt(receipt(TX1), BASE);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ReceiptFeeUnknown);
    expect((refused as ChainError).transient).toBe(true);
    expect((refused as ReceiptFeeUnknown).txHash).toBe(TX1);
    // The receipt's gas missing is the node's fault on any URL: permanent, as before.
    let noGas: unknown;
    try {
      parseReceipt(receipt(TX1, { gasUsed: undefined, l1Fee: '0x1' }), BASE);
    } catch (error) {
      noGas = error;
    }
    expect((noGas as ChainError).transient).toBe(false);
    // An OP deposit (type 0x7e, minted from L1) owes none.
    expect(parseReceipt(receipt(TX1, { type: '0x7e' }), BASE)?.feeBaseUnits).toBe(
      21_000n * 1_000_000_000n,
    );
    // Where no L1 data fee is paid, absent is none: as before.
    expect(parseReceipt(receipt(TX1), ETHEREUM)?.feeBaseUnits).toBe(21_000n * 1_000_000_000n);
  });
});

describe('receiptsOfBlock', () => {
  const all = [receipt(TX1), receipt(TX2, { status: '0x0' }), receipt(TX3)];

  it('gives the receipts asked for, read as the block’s own', () => {
    const found = receiptsOfBlock(all, header, [TX2, TX3], ETHEREUM);
    expect([...found!.keys()]).toEqual([TX2, TX3]);
    expect(found!.get(TX2)).toEqual({
      txHash: TX2,
      succeeded: false,
      feeBaseUnits: 21_000n * 10n ** 9n,
    });
  });

  it('answers null for a block the node lacks', () => {
    expect(receiptsOfBlock(null, header, [TX1], ETHEREUM)).toBeNull();
  });

  it('refuses receipts of another block, of another transaction, or too few', () => {
    const otherBlock = [receipt(TX1), receipt(TX2, { blockHash: hex('cc') }), receipt(TX3)];
    expect(() => receiptsOfBlock(otherBlock, header, [TX1], ETHEREUM)).toThrow(ChainError);
    const otherHeight = [receipt(TX1), receipt(TX2), receipt(TX3, { blockNumber: '0xf' })];
    expect(() => receiptsOfBlock(otherHeight, header, [TX1], ETHEREUM)).toThrow(ChainError);
    const reordered = [receipt(TX2), receipt(TX1), receipt(TX3)];
    expect(() => receiptsOfBlock(reordered, header, [TX1], ETHEREUM)).toThrow(ChainError);
    expect(() => receiptsOfBlock(all.slice(1), header, [TX2], ETHEREUM)).toThrow(/2 receipts/);
  });

  it('refuses an OP-stack block answered without a receipt’s l1Fee, a deposit’s aside', () => {
    const l1Fee = '0x64';
    // The block's L1 attributes deposit leads it and carries no l1Fee.
    const whole = [
      receipt(TX1, { type: '0x7e' }),
      receipt(TX2, { l1Fee }),
      receipt(TX3, { l1Fee }),
    ];
    expect(receiptsOfBlock(whole, header, [TX2], BASE)?.get(TX2)?.feeBaseUnits).toBe(
      21_000n * 10n ** 9n + 100n,
    );
    // Another URL, or the receipts one by one, may answer whole; nothing is booked on this one.
    const stripped = [whole[0], receipt(TX2, { l1Fee: null }), whole[2]];
    expect(() => receiptsOfBlock(stripped, header, [TX2], BASE)).toThrow(BlockReceiptsRefused);
  });
});

describe('receiptInBlock', () => {
  it('counts a receipt read alone only when it names the block', () => {
    const parsed = parseReceipt(receipt(TX1), ETHEREUM);
    expect(receiptInBlock(parsed, header, TX1)).toMatchObject({ txHash: TX1, succeeded: true });
    expect(receiptInBlock(parsed, header, TX2)).toBeNull();
    expect(receiptInBlock(parsed, { ...header, hash: hex('cc') }, TX1)).toBeNull();
    expect(receiptInBlock(null, header, TX1)).toBeNull();
  });
});
