import { TronResponseError } from './tron-errors';
import {
  parseBlock,
  parseConstantWord,
  parseTransactionInfos,
  parseTransactionOutcome,
} from './tron-responses';

const BLOCK_ID = '0000000003fe266bf6b6d392f654dc2e5011601546ed04623d9fcc4e9d439a25';
const TX_ID = 'ff44a2823a870c12f12a4ca6e7647650356bc2bb5e02c5855312cf2db4c950c1';
const PARENT_ID = '0000000003fe266a1f2c3d4e5f60718293a4b5c6d7e8f9011223344556677889';

const block = (number: number | undefined, blockId = BLOCK_ID, parentHash?: string): unknown => ({
  blockID: blockId,
  block_header: { raw_data: { number, timestamp: 1, parentHash } },
  transactions: [{ txID: TX_ID.toUpperCase() }],
});

describe('parseBlock', () => {
  it('reads the number, the id, the parent id and the transaction ids in lowercase', () => {
    expect(parseBlock(block(66987627, BLOCK_ID, PARENT_ID.toUpperCase()))).toEqual({
      number: 66987627,
      blockId: BLOCK_ID,
      parentHash: PARENT_ID,
      transactionIds: [TX_ID],
    });
    // A genesis block's header may carry none.
    expect(parseBlock(block(66987627))).toMatchObject({ parentHash: null });
    expect(() => parseBlock(block(66987627, BLOCK_ID, 'xyz'))).toThrow('parentHash is not a hash');
  });

  it('reads a missing number as 0 (protobuf JSON leaves zero out) and {} as no block', () => {
    expect(parseBlock(block(undefined, '0'.repeat(64)))?.number).toBe(0);
    expect(parseBlock({})).toBeNull();
  });

  it('rejects a block whose id does not start with its number', () => {
    expect(() => parseBlock(block(66987628))).toThrow(TronResponseError);
    expect(() => parseBlock({ blockID: 'xyz' })).toThrow('malformed response');
  });

  it("treats java-tron's rate limiter as transient and other node errors as permanent", () => {
    const busy = { Error: 'class java.lang.IllegalAccessException : lack of computing resources' };
    expect(() => parseBlock(busy)).toThrow(expect.objectContaining({ transient: true }));
    const broken = { Error: 'class java.lang.NumberFormatException : For input string: "x"' };
    expect(() => parseBlock(broken)).toThrow(expect.objectContaining({ transient: false }));
  });
});

describe('parseTransactionInfos', () => {
  const info = (extra: Record<string, unknown>): Record<string, unknown> => ({
    id: TX_ID,
    blockNumber: 7,
    ...extra,
  });

  it('reads logs, and {} (the answer for block 0) as no transactions', () => {
    const log = { address: 'A614F803B6FD780986A42C78EC9C7F77E6DED13C', topics: [TX_ID], data: '' };
    expect(parseTransactionInfos([info({ log: [log] })], 7)).toEqual([
      {
        id: TX_ID,
        succeeded: true,
        logs: [{ address: 'a614f803b6fd780986a42c78ec9c7f77e6ded13c', topics: [TX_ID], data: '' }],
      },
    ]);
    expect(parseTransactionInfos({}, 0)).toEqual([]);
  });

  it('marks failed and reverted transactions', () => {
    const outcomes = parseTransactionInfos(
      [
        info({ result: 'FAILED', receipt: { result: 'REVERT' } }),
        info({ receipt: { result: 'OUT_OF_ENERGY' } }),
        info({ receipt: { net_fee: 267000 } }),
      ],
      7,
    ).map((parsed) => parsed.succeeded);
    expect(outcomes).toEqual([false, false, true]);
  });

  it('rejects infos of another block and malformed logs', () => {
    expect(() => parseTransactionInfos([info({})], 8)).toThrow('in block 8');
    expect(() => parseTransactionInfos([info({ log: [{ address: '41' }] })], 7)).toThrow(
      'log address',
    );
    expect(() => parseTransactionInfos('<html>', 7)).toThrow('not an array');
  });
});

describe('parseTransactionOutcome', () => {
  const info = (extra: Record<string, unknown>): Record<string, unknown> => ({
    id: TX_ID,
    blockNumber: 7,
    ...extra,
  });

  it('reads the block and the outcome, and {} (unknown id) as null', () => {
    expect(parseTransactionOutcome(info({ receipt: { result: 'SUCCESS' } }), TX_ID)).toEqual({
      blockNumber: 7,
      succeeded: true,
    });
    // A TRX transfer: no contract result in the receipt.
    expect(parseTransactionOutcome(info({ receipt: { net_usage: 267 } }), TX_ID)?.succeeded).toBe(
      true,
    );
    expect(parseTransactionOutcome({}, TX_ID)).toBeNull();
  });

  it('marks failed and reverted transactions', () => {
    const failed = info({ result: 'FAILED', receipt: { result: 'REVERT' } });
    expect(parseTransactionOutcome(failed, TX_ID)?.succeeded).toBe(false);
    const outOfEnergy = info({ receipt: { result: 'OUT_OF_ENERGY' } });
    expect(parseTransactionOutcome(outOfEnergy, TX_ID)?.succeeded).toBe(false);
  });

  it('rejects the info of another transaction, without a block, and node errors', () => {
    expect(() => parseTransactionOutcome(info({}), '0'.repeat(64))).toThrow('another transaction');
    expect(() => parseTransactionOutcome(info({ blockNumber: undefined }), TX_ID)).toThrow(
      'block number',
    );
    expect(() => parseTransactionOutcome([], TX_ID)).toThrow('not an object');
    const busy = { Error: 'class java.lang.IllegalAccessException : lack of computing resources' };
    expect(() => parseTransactionOutcome(busy, TX_ID)).toThrow(
      expect.objectContaining({ transient: true }),
    );
  });
});

describe('parseConstantWord', () => {
  const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');
  const parse = (value: unknown) => () => parseConstantWord(value, 'decimals()');

  it('reads the one word a view function returned', () => {
    const answer = { result: { result: true }, constant_result: ['0'.repeat(62) + '12'] };
    expect(parseConstantWord(answer, 'decimals()')).toBe(18n);
  });

  it("refuses java-tron's refusal (no contract at the address) as permanent", () => {
    const refused = {
      result: { code: 'CONTRACT_VALIDATE_ERROR', message: hex('Smart contract is not exist.') },
    };
    expect(parse(refused)).toThrow(
      'decimals() refused: CONTRACT_VALIDATE_ERROR Smart contract is not exist.',
    );
    try {
      parseConstantWord(refused, 'decimals()');
    } catch (error) {
      expect((error as TronResponseError).transient).toBe(false);
    }
  });

  it('refuses as transient a node too busy to serve the call', () => {
    try {
      parseConstantWord({ result: { code: 'SERVER_BUSY', message: hex('busy') } }, 'decimals()');
      throw new Error('expected a refusal');
    } catch (error) {
      expect(error).toBeInstanceOf(TronResponseError);
      expect((error as TronResponseError).transient).toBe(true);
    }
  });

  it('refuses a call that reverted inside the contract', () => {
    const reverted = {
      result: { result: true, message: hex('REVERT opcode executed') },
      constant_result: [''],
      transaction: { ret: [{ ret: 'FAILED' }] },
    };
    expect(parse(reverted)).toThrow('decimals() failed: REVERT opcode executed');
  });

  it('refuses anything but exactly one 32-byte word', () => {
    for (const constant of [undefined, [], [''], ['12'], ['0'.repeat(64), '0'.repeat(64)], [6]]) {
      expect(parse({ result: { result: true }, constant_result: constant })).toThrow(
        'malformed response',
      );
    }
    expect(parse({})).toThrow('without a result');
    expect(parse({ Error: 'lack of computing resources' })).toThrow(TronResponseError);
  });
});
