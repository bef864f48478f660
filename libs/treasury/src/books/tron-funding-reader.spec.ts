import { TronWeb } from 'tronweb';
import { TESTNET_NETWORKS } from '@app/chains/networks/default-networks';
import { parseTronFunding } from './tron-funding-reader';

const NETWORK = { ...TESTNET_NETWORKS.TRON, rpcUrls: ['http://127.0.0.1:1'] };
const TX_ID = 'ab'.repeat(32);
const OPERATOR = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
const HOT = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf';
const USDT = NETWORK.tokens.USDT!.contract;
const hex = (address: string) => TronWeb.address.toHex(address).toLowerCase();
const word = (address: string) => `${'0'.repeat(24)}${hex(address).slice(2)}`;
const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

const triggerTransaction = {
  txID: TX_ID,
  raw_data: {
    contract: [
      {
        type: 'TriggerSmartContract',
        parameter: { value: { owner_address: hex(OPERATOR), contract_address: hex(USDT) } },
      },
    ],
  },
};

describe('parseTronFunding', () => {
  it('reads a TRC-20 Transfer log of a watched token, by its index in the info, and the fee', () => {
    const info = {
      id: TX_ID,
      blockNumber: 40,
      fee: 13_844_850,
      receipt: { result: 'SUCCESS' },
      log: [
        {
          address: hex(USDT).slice(2),
          topics: [TRANSFER_TOPIC, word(OPERATOR), word(HOT)],
          data: 500_000_000n.toString(16).padStart(64, '0'),
        },
      ],
    };
    expect(parseTronFunding(NETWORK, TX_ID, triggerTransaction, info, 42)).toEqual({
      state: 'mined',
      succeeded: true,
      block: 40,
      confirmations: 3,
      from: OPERATOR,
      feeBaseUnits: 13_844_850n,
      moves: [
        {
          position: 0,
          from: OPERATOR,
          to: HOT,
          currency: 'USDT',
          decimals: 6,
          amountBaseUnits: 500_000_000n,
        },
      ],
    });
  });

  it('reads the TRX of a TransferContract as the native move; no fee field is 0', () => {
    const transfer = {
      txID: TX_ID,
      raw_data: {
        contract: [
          {
            type: 'TransferContract',
            parameter: {
              value: { owner_address: hex(OPERATOR), to_address: hex(HOT), amount: 25_000_000 },
            },
          },
        ],
      },
    };
    const result = parseTronFunding(NETWORK, TX_ID, transfer, { id: TX_ID, blockNumber: 9 }, 9);
    expect(result).toMatchObject({
      state: 'mined',
      feeBaseUnits: 0n,
      moves: [
        {
          position: 'native',
          from: OPERATOR,
          to: HOT,
          currency: 'TRX',
          decimals: 6,
          amountBaseUnits: 25_000_000n,
        },
      ],
    });
  });

  it('knows an unknown transaction, a pending one, and a failed one', () => {
    expect(parseTronFunding(NETWORK, TX_ID, {}, {}, 9)).toEqual({ state: 'unknown' });
    expect(parseTronFunding(NETWORK, TX_ID, triggerTransaction, {}, 9)).toEqual({
      state: 'pending',
    });
    const reverted = { id: TX_ID, blockNumber: 5, result: 'FAILED', receipt: { result: 'REVERT' } };
    expect(parseTronFunding(NETWORK, TX_ID, triggerTransaction, reverted, 9)).toMatchObject({
      state: 'mined',
      succeeded: false,
      moves: [],
    });
  });

  it('ignores the Transfer logs of tokens it does not watch', () => {
    const info = {
      id: TX_ID,
      blockNumber: 40,
      log: [
        {
          address: hex(OPERATOR).slice(2),
          topics: [TRANSFER_TOPIC, word(OPERATOR), word(HOT)],
          data: '1'.padStart(64, '0'),
        },
      ],
    };
    expect(parseTronFunding(NETWORK, TX_ID, triggerTransaction, info, 40)).toMatchObject({
      moves: [],
    });
  });
});
