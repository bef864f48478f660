import { JsonRpcProvider, Network } from 'ethers';
import { classifyBroadcastError, nodeErrorOf } from './evm-broadcast-errors';

const rejected = { kind: 'rejected', reason: expect.any(String) };

// Wordings as the clients send them (sources in evm-broadcast-errors.ts); anvil's as measured
// against anvil 1.7.1 here.
const CASES: Array<[string, number, string, object | null]> = [
  ['geth', -32000, 'already known', { kind: 'already_known' }],
  ['Nethermind', -32010, 'AlreadyKnown', { kind: 'already_known' }],
  ['Besu', -32000, 'Known transaction', { kind: 'already_known' }],
  ['anvil', -32003, 'transaction already imported', { kind: 'already_known' }],
  [
    'OpenEthereum',
    -32010,
    'Transaction with the same hash was already imported.',
    { kind: 'already_known' },
  ],
  ['erigon', -32000, 'INTERNAL_ERROR: existing tx with same hash', { kind: 'already_known' }],
  ['geth', -32000, 'nonce too low: next nonce 5, tx nonce 3', { kind: 'nonce_too_low' }],
  [
    'geth (wrapped)',
    -32000,
    'err: nonce too low: address 0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC, tx: 3 state: 5',
    { kind: 'nonce_too_low' },
  ],
  ['anvil', -32003, 'nonce too low', { kind: 'nonce_too_low' }],
  ['Besu', -32001, 'Nonce too low', { kind: 'nonce_too_low' }],
  [
    'Nethermind',
    -32010,
    'OldNonce, Current nonce: 55, nonce of rejected tx: 54',
    { kind: 'nonce_too_low' },
  ],
  [
    'OpenEthereum',
    -32010,
    'Transaction nonce is too low. Try incrementing the nonce.',
    { kind: 'nonce_too_low' },
  ],
  ['ethers wording', -32000, 'nonce has already been used', { kind: 'nonce_too_low' }],
  ['geth', -32000, 'replacement transaction underpriced', { kind: 'underpriced' }],
  ['anvil', -32003, 'replacement transaction underpriced', { kind: 'underpriced' }],
  ['Besu', -32000, 'Replacement transaction underpriced', { kind: 'underpriced' }],
  [
    'geth',
    -32000,
    'transaction underpriced: tip needed 1000000000, tip permitted 1',
    { kind: 'underpriced' },
  ],
  ['Nethermind', -32010, 'ReplacementNotAllowed', { kind: 'underpriced' }],
  ['Nethermind', -32010, 'FeeTooLowToCompete', { kind: 'underpriced' }],
  [
    'Nethermind',
    -32010,
    'FeeTooLow, MaxFeePerGas too low. MaxFeePerGas: 1, BaseFee: 7, MaxPriorityFeePerGas:1, Block number: 10',
    { kind: 'underpriced' },
  ],
  [
    'OpenEthereum',
    -32010,
    'Transaction gas price is too low. There is another transaction with same nonce in the queue. Try increasing the gas price or incrementing the nonce.',
    { kind: 'underpriced' },
  ],
  ['Besu', -32009, 'Gas price below configured minimum gas price', { kind: 'underpriced' }],
  ['anvil', -32003, 'max fee per gas less than block base fee', { kind: 'underpriced' }],
  ['anvil', -32003, 'Insufficient funds for gas * price + value', rejected],
  [
    'geth',
    -32000,
    'insufficient funds for gas * price + value: balance 0, tx cost 2100000, overshot 2100000',
    rejected,
  ],
  ['Nethermind', -32010, 'InsufficientFunds, Account balance: 0, cumulative cost: 21000', rejected],
  ['Besu', -32004, 'Upfront cost exceeds account balance', rejected],
  ['anvil', -32000, 'intrinsic gas too low', rejected],
  ['geth', -32000, 'exceeds block gas limit', rejected],
  ['geth', -32000, 'invalid sender', rejected],
  ['geth', -32000, 'tx fee (1.20 ether) exceeds the configured cap (1.00 ether)', rejected],
  ['anvil', -32003, 'invalid chain id for signer', rejected],
  ['anvil', -32602, 'Failed to decode transaction', rejected],
  ['Nethermind', -32010, 'NonceGap, Future nonce. Expected nonce: 5', rejected],
  ['EIP-1474 code', -32003, 'Transaction rejected', rejected],
  ['geth', -32000, 'txpool is full', null],
  ['Infura', -32005, 'daily request count exceeded, request rate limited', null],
  ['provider', -32003, 'Too Many Requests, try again later', null],
  ['nitro', -32000, 'sequencer pending tx pool full, please try again', null],
  ['geth', -32603, 'internal error', null],
  ['geth', -32000, 'header not found', null],
];

describe('classifyBroadcastError', () => {
  it.each(CASES)('%s %d %j', (_client, code, message, expected) => {
    expect(classifyBroadcastError({ code, message })).toEqual(expected);
  });

  it('gives the reason in the node’s words, without URLs or raw bytes, and short', () => {
    const raw = `0x02f8b0${'ab'.repeat(150)}`;
    const result = classifyBroadcastError({
      code: -32000,
      message: `insufficient funds for gas * price + value (tx ${raw}) see https://rpc.example/key123`,
    });

    expect(result).toEqual({
      kind: 'rejected',
      reason: 'insufficient funds for gas * price + value (tx [hex]) see [url]',
    });
    const long = classifyBroadcastError({
      code: -32003,
      message: `invalid sender ${'x'.repeat(500)}`,
    });
    expect(long?.kind === 'rejected' && long.reason.length).toBe(160);
  });
});

describe('nodeErrorOf', () => {
  // ethers' own error shapes, made by the provider that turns a JSON-RPC error into them.
  const provider = new JsonRpcProvider('http://127.0.0.1:9', Network.from(1), {
    staticNetwork: true,
  });
  afterAll(() => provider.destroy());
  const ethersError = (message: string): unknown =>
    provider.getRpcError(
      { method: 'eth_sendRawTransaction', params: ['0x02'], id: 1, jsonrpc: '2.0' },
      { id: 1, error: { code: -32000, message } },
    );

  it('finds the node’s error where ethers keeps it, named or not', () => {
    expect(nodeErrorOf(ethersError('nonce too low'))).toEqual({
      code: -32000,
      message: 'nonce too low',
    });
    expect(nodeErrorOf(ethersError('insufficient funds for gas * price + value'))).toMatchObject({
      message: 'insufficient funds for gas * price + value',
    });
    expect(nodeErrorOf(ethersError('already known'))).toMatchObject({ message: 'already known' });
  });

  it('finds nothing in a transport failure', () => {
    expect(
      nodeErrorOf(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
    ).toBeUndefined();
    expect(nodeErrorOf('text')).toBeUndefined();
    expect(nodeErrorOf(null)).toBeUndefined();
  });
});
