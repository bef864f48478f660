import { ChainError } from '../rpc/chain-error';
import {
  BlockHeader,
  parseBlockHeader,
  parseReceipt,
  receiptInBlock,
  receiptsOfBlock,
} from './evm-block-receipts';

const hex = (byte: string) => `0x${byte.repeat(32)}`;
const BLOCK = hex('aa');
const PARENT = hex('bb');
const [TX1, TX2, TX3] = [hex('01'), hex('02'), hex('03')];

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
    expect(parseReceipt(receipt(TX1, { status: '0x0' }), 'ETHEREUM')).toEqual({
      txHash: TX1,
      blockHash: BLOCK,
      blockNumber: 16,
      succeeded: false,
      feeBaseUnits: 21_000n * 1_000_000_000n,
    });
  });

  it('takes a receipt without a block for none, and guesses no status or fee', () => {
    expect(parseReceipt(null, 'ETHEREUM')).toBeNull();
    expect(parseReceipt(receipt(TX1, { blockHash: null, blockNumber: null }), 'ETHEREUM')).toBe(
      null,
    );
    expect(() => parseReceipt(receipt(TX1, { status: undefined }), 'ETHEREUM')).toThrow(/status/);
    expect(() => parseReceipt(receipt(TX1, { gasUsed: undefined }), 'ETHEREUM')).toThrow(/gasUsed/);
  });
});

describe('receiptsOfBlock', () => {
  const all = [receipt(TX1), receipt(TX2, { status: '0x0' }), receipt(TX3)];

  it('gives the receipts asked for, read as the block’s own', () => {
    const found = receiptsOfBlock(all, header, [TX2, TX3], 'ETHEREUM');
    expect([...found!.keys()]).toEqual([TX2, TX3]);
    expect(found!.get(TX2)).toEqual({
      txHash: TX2,
      succeeded: false,
      feeBaseUnits: 21_000n * 10n ** 9n,
    });
  });

  it('answers null for a block the node lacks', () => {
    expect(receiptsOfBlock(null, header, [TX1], 'ETHEREUM')).toBeNull();
  });

  it('refuses receipts of another block, of another transaction, or too few', () => {
    const otherBlock = [receipt(TX1), receipt(TX2, { blockHash: hex('cc') }), receipt(TX3)];
    expect(() => receiptsOfBlock(otherBlock, header, [TX1], 'ETHEREUM')).toThrow(ChainError);
    const otherHeight = [receipt(TX1), receipt(TX2), receipt(TX3, { blockNumber: '0xf' })];
    expect(() => receiptsOfBlock(otherHeight, header, [TX1], 'ETHEREUM')).toThrow(ChainError);
    const reordered = [receipt(TX2), receipt(TX1), receipt(TX3)];
    expect(() => receiptsOfBlock(reordered, header, [TX1], 'ETHEREUM')).toThrow(ChainError);
    expect(() => receiptsOfBlock(all.slice(1), header, [TX2], 'ETHEREUM')).toThrow(/2 receipts/);
  });
});

describe('receiptInBlock', () => {
  it('counts a receipt read alone only when it names the block', () => {
    const parsed = parseReceipt(receipt(TX1), 'ETHEREUM');
    expect(receiptInBlock(parsed, header, TX1)).toMatchObject({ txHash: TX1, succeeded: true });
    expect(receiptInBlock(parsed, header, TX2)).toBeNull();
    expect(receiptInBlock(parsed, { ...header, hash: hex('cc') }, TX1)).toBeNull();
    expect(receiptInBlock(null, header, TX1)).toBeNull();
  });
});
