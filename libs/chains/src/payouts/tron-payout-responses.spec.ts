import { utils } from 'tronweb';
import { TronResponseError } from '../adapters/tron/tron-errors';
import {
  parseAccountBalance,
  parseBlockTimestamp,
  parseTransactionKnown,
  parseUint256Result,
  parseUnsignedTransfer,
  RequestedCall,
} from './tron-payout-responses';

const codec: {
  txJsonToPb(transaction: unknown): unknown;
  txPbToTxID(protobuf: unknown): string;
  txPbToRawDataHex(protobuf: unknown): string;
} = utils.transaction;

const OWNER = `41${'a1'.repeat(20)}`;
const CONTRACT = `41${'c2'.repeat(20)}`;
const RECIPIENT_WORD = `${'0'.repeat(24)}${'b3'.repeat(20)}`;
const REQUESTED: RequestedCall = {
  owner: OWNER,
  contract: CONTRACT,
  data: `a9059cbb${RECIPIENT_WORD}${'0'.repeat(58)}0f4240`,
  feeLimit: 30_000_000,
};
const TX_ID = 'ff44a2823a870c12f12a4ca6e7647650356bc2bb5e02c5855312cf2db4c950c1';
const hexOf = (text: string): string => Buffer.from(text, 'utf8').toString('hex');

function rawData(value: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    contract: [
      {
        parameter: { value, type_url: 'type.googleapis.com/protocol.TriggerSmartContract' },
        type: 'TriggerSmartContract',
      },
    ],
    ref_block_bytes: '0003',
    ref_block_hash: '1234567890abcdef',
    expiration: 1_700_000_060_000,
    fee_limit: REQUESTED.feeLimit,
    timestamp: 1_700_000_000_123,
    ...extra,
  };
}

/** A triggersmartcontract answer whose txID and raw_data_hex encode raw_data, as a node's do. */
function answer(raw: Record<string, unknown>): unknown {
  const protobuf = codec.txJsonToPb({ raw_data: raw, visible: false });
  const transaction = {
    visible: false,
    txID: codec.txPbToTxID(protobuf).replace(/^0x/, '').toUpperCase(),
    raw_data: raw,
    raw_data_hex: codec.txPbToRawDataHex(protobuf),
  };
  return { result: { result: true }, transaction };
}

const callValue = (overrides: Record<string, unknown> = {}) => ({
  data: REQUESTED.data,
  owner_address: OWNER,
  contract_address: CONTRACT,
  ...overrides,
});

describe('parseUnsignedTransfer', () => {
  it('returns the transaction that makes exactly the requested call', () => {
    const raw = rawData(callValue());
    const unsigned = parseUnsignedTransfer(answer(raw), REQUESTED);
    expect(unsigned).toEqual({
      visible: false,
      txID: expect.stringMatching(/^[0-9a-f]{64}$/),
      raw_data: raw,
      raw_data_hex: expect.stringMatching(/^[0-9a-f]+$/),
    });
    const upperCaseHex = rawData(callValue({ owner_address: OWNER.toUpperCase() }));
    expect(parseUnsignedTransfer(answer(upperCaseHex), REQUESTED).txID).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    ['owner', rawData(callValue({ owner_address: `41${'d4'.repeat(20)}` }))],
    ['contract', rawData(callValue({ contract_address: `41${'d4'.repeat(20)}` }))],
    ['call data', rawData(callValue({ data: REQUESTED.data.replace('b3b3', 'd4d4') }))],
    ['call_value', rawData(callValue({ call_value: 1 }))],
    ['fee_limit', rawData(callValue(), { fee_limit: 1_000_000_000 })],
    ['expiration', rawData(callValue(), { expiration: undefined })],
    // Out of reach of an expiry proof: its reference block could not be found again.
    [
      'expiration (more than 10 minutes after the build time)',
      rawData(callValue(), { expiration: 1_700_000_000_123 + 10 * 60_000 + 1 }),
    ],
  ])('refuses a transaction with another %s', (field, raw) => {
    expect(() => parseUnsignedTransfer(answer(raw), REQUESTED)).toThrow(
      `the node built another transaction than asked (${field})`,
    );
  });

  it('refuses a txID or raw_data_hex that does not encode raw_data', () => {
    const honest = answer(rawData(callValue())) as { transaction: Record<string, unknown> };
    const otherId = { ...honest, transaction: { ...honest.transaction, txID: TX_ID } };
    expect(() => parseUnsignedTransfer(otherId, REQUESTED)).toThrow('(txID or raw_data_hex)');
    const swapped = {
      ...honest,
      transaction: {
        ...honest.transaction,
        raw_data: rawData(callValue(), { timestamp: 1_700_000_000_124 }),
      },
    };
    expect(() => parseUnsignedTransfer(swapped, REQUESTED)).toThrow('(txID or raw_data_hex)');
  });

  it('reports the node’s refusal in its words', () => {
    const refusal = {
      result: {
        code: 'CONTRACT_VALIDATE_ERROR',
        message: hexOf('Contract validate error : No contract or not a valid smart contract'),
      },
    };
    expect(() => parseUnsignedTransfer(refusal, REQUESTED)).toThrow(
      'triggersmartcontract refused: CONTRACT_VALIDATE_ERROR Contract validate error : No contract or not a valid smart contract',
    );
    expect(() => parseUnsignedTransfer({ result: { result: true } }, REQUESTED)).toThrow(
      TronResponseError,
    );
  });
});

describe('parseTransactionKnown', () => {
  it('reads {} as unknown and the transaction of the id as known', () => {
    expect(parseTransactionKnown({}, TX_ID)).toBe(false);
    expect(parseTransactionKnown({ txID: TX_ID.toUpperCase(), raw_data: {} }, TX_ID)).toBe(true);
    expect(() => parseTransactionKnown({ txID: '00'.repeat(32) }, TX_ID)).toThrow(
      'transaction of another id',
    );
  });
});

describe('parseUint256Result', () => {
  it('reads the single word of constant_result', () => {
    const word = '3b9aca00000f'.padStart(64, '0');
    expect(parseUint256Result({ result: { result: true }, constant_result: [word] })).toBe(
      0x3b9aca00000fn,
    );
    expect(() => parseUint256Result({ result: { result: true }, constant_result: [] })).toThrow(
      'constant_result is not one uint256',
    );
    expect(() =>
      parseUint256Result({ result: { code: 'OTHER_ERROR', message: hexOf('REVERT') } }),
    ).toThrow('triggerconstantcontract refused: OTHER_ERROR REVERT');
  });
});

describe('parseAccountBalance', () => {
  it('reads sun, with {} and a left-out balance as 0', () => {
    expect(parseAccountBalance({})).toBe(0n);
    expect(parseAccountBalance({ address: OWNER })).toBe(0n);
    expect(parseAccountBalance({ address: OWNER, balance: 50_000_000 })).toBe(50_000_000n);
    expect(() => parseAccountBalance({ balance: '5' })).toThrow('account balance');
    expect(() => parseAccountBalance({ balance: -1 })).toThrow('account balance');
  });
});

describe('parseBlockTimestamp', () => {
  const block = (number: number, timestamp?: number) => ({
    blockID: number.toString(16).padStart(16, '0') + 'ab'.repeat(24),
    block_header: { raw_data: { number, timestamp } },
  });

  it('reads the header timestamp of a block', () => {
    expect(parseBlockTimestamp(block(42, 1_700_000_126_000))).toBe(1_700_000_126_000);
    expect(() => parseBlockTimestamp({})).toThrow('no block');
    expect(() => parseBlockTimestamp(block(42, -5))).toThrow('block timestamp');
  });
});
