import {
  ChecksummedAddresses,
  decodeTransferLog,
  ERC20_TRANSFER_TOPIC,
  RawLog,
} from './transfer-logs';

// EIP-55's own examples.
const SENDER = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const RECIPIENTS = [
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
];
const CONTRACT = '0xdAC17F958D2ee523a2206206994597C13D831ec7';

const topicOf = (address: string) => `0x${'0'.repeat(24)}${address.slice(2).toLowerCase()}`;

function transferLog(to: string, logIndex: number): RawLog {
  return {
    address: CONTRACT.toLowerCase(),
    topics: [ERC20_TRANSFER_TOPIC, topicOf(SENDER), topicOf(to)],
    data: `0x${1_500_000n.toString(16).padStart(64, '0')}`,
    blockNumber: '0x10',
    blockHash: `0x${'ab'.repeat(32)}`,
    transactionHash: `0x${logIndex.toString(16).padStart(64, '0')}`,
    logIndex: `0x${logIndex.toString(16)}`,
  };
}

describe('decodeTransferLog', () => {
  it('gives checksummed addresses, the same ones from one answer-wide cache', () => {
    const addresses = new ChecksummedAddresses();
    const decoded = RECIPIENTS.map((to, index) =>
      decodeTransferLog(transferLog(to, index), CONTRACT, addresses),
    );
    expect(decoded.map((transfer) => [transfer?.from, transfer?.to])).toEqual([
      [SENDER, RECIPIENTS[0]],
      [SENDER, RECIPIENTS[1]],
    ]);
    expect(decoded[0]).toMatchObject({ amountBaseUnits: 1_500_000n, blockNumber: 16, logIndex: 0 });
    // Without a cache of its own, a log is decoded the same.
    expect(decodeTransferLog(transferLog(RECIPIENTS[0], 0), CONTRACT)).toEqual(decoded[0]);
  });
});

describe('decodeTransferLog: the receiver checksum', () => {
  /** Counts the checksums it computes (a keccak hash each). */
  class CountingAddresses extends ChecksummedAddresses {
    computed: string[] = [];
    of(lowercase: string): string {
      this.computed.push(lowercase);
      return super.of(lowercase);
    }
  }

  it('is computed only when `to` is read, once, and toKey needs none', () => {
    const addresses = new CountingAddresses();
    const transfer = decodeTransferLog(transferLog(RECIPIENTS[0], 0), CONTRACT, addresses);
    expect(addresses.computed).toEqual([SENDER.toLowerCase()]);
    expect(transfer?.toKey).toBe(RECIPIENTS[0].toLowerCase());
    expect(addresses.computed).toHaveLength(1);

    expect(transfer?.to).toBe(RECIPIENTS[0]);
    expect(transfer?.to).toBe(RECIPIENTS[0]);
    expect(addresses.computed).toEqual([SENDER.toLowerCase(), RECIPIENTS[0].toLowerCase()]);
  });
});
