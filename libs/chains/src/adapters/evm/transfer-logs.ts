import { getAddress, id } from 'ethers';
import { TokenTransfer } from '../chain-adapter';

/** topic0 of `Transfer(address indexed from, address indexed to, uint256 value)`. */
export const ERC20_TRANSFER_TOPIC = id('Transfer(address,address,uint256)');

const HASH_FORMAT = /^0x[0-9a-f]{64}$/;
const ADDRESS_TOPIC_FORMAT = /^0x0{24}[0-9a-f]{40}$/;
const UINT256_DATA_FORMAT = /^0x[0-9a-f]{64}$/;

/** A log the node returned that cannot be what we asked for: the response is invalid. */
export class InvalidLogError extends Error {}

/**
 * A log as eth_getLogs answers it (JSON-RPC, not ethers' Log object: building those checksums
 * every log's address again and copies it field by field, for logs we mostly drop).
 */
export interface RawLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  logIndex: string;
  removed?: boolean;
}

const QUANTITY_FORMAT = /^0x[0-9a-f]{1,13}$/i;

/**
 * EIP-55 checksummed addresses of one eth_getLogs answer, each computed once: a checksum is a
 * keccak hash (about 11 µs, 26 under a settling tick's load), and the senders of a block repeat
 * (an exchange's hot wallet pays hundreds of addresses).
 */
export class ChecksummedAddresses {
  private readonly known = new Map<string, string>();

  /** `lowercase`: 0x and 40 lower-case hex digits. */
  of(lowercase: string): string {
    let address = this.known.get(lowercase);
    if (address === undefined) {
      address = getAddress(lowercase);
      this.known.set(lowercase, address);
    }
    return address;
  }
}

/**
 * Decodes one ERC-20 Transfer log, or returns undefined for a log that only shares the topic:
 * ERC-721 Transfer has the same signature with the token id as a third indexed topic. Throws
 * InvalidLogError when the node's answer cannot be a Transfer log at all. `tokenContract` is the
 * log's contract, checksummed (the caller checked it is one it asked for).
 */
export function decodeTransferLog(
  log: RawLog,
  tokenContract: string,
  addresses = new ChecksummedAddresses(),
): TokenTransfer | undefined {
  // Flagged by a node when its block was reorged away while the query ran.
  if (log.removed === true) return undefined;
  if (!Array.isArray(log.topics) || typeof log.data !== 'string') {
    throw new InvalidLogError('log without topics or data');
  }
  const topics = log.topics.map((topic) => String(topic).toLowerCase());
  if (topics[0] !== ERC20_TRANSFER_TOPIC) throw new InvalidLogError('log of another event');
  if (topics.length !== 3) return undefined;
  const data = log.data.toLowerCase();
  if (!UINT256_DATA_FORMAT.test(data)) return undefined;
  if (!ADDRESS_TOPIC_FORMAT.test(topics[1]) || !ADDRESS_TOPIC_FORMAT.test(topics[2])) {
    throw new InvalidLogError('Transfer log with malformed address topics');
  }

  const txHash = String(log.transactionHash).toLowerCase();
  const blockHash = String(log.blockHash).toLowerCase();
  if (!HASH_FORMAT.test(txHash) || !HASH_FORMAT.test(blockHash)) {
    throw new InvalidLogError('log without a valid transaction or block hash');
  }
  const logIndex = quantity(log.logIndex);
  const blockNumber = quantity(log.blockNumber);
  if (logIndex === undefined) throw new InvalidLogError('log without a valid position');
  if (blockNumber === undefined) throw new InvalidLogError('log without a valid block number');
  const toKey = `0x${topics[2].slice(-40)}`;
  let to: string | undefined;
  return {
    tokenContract,
    from: addresses.of(`0x${topics[1].slice(-40)}`),
    get to() {
      to ??= addresses.of(toKey);
      return to;
    },
    toKey,
    amountBaseUnits: BigInt(data),
    txHash,
    logIndex,
    blockNumber,
    blockHash,
  };
}

/** A JSON-RPC quantity ("0x1b4") as a safe integer, or undefined. */
function quantity(value: unknown): number | undefined {
  if (typeof value !== 'string' || !QUANTITY_FORMAT.test(value)) return undefined;
  const number = Number(value);
  return Number.isSafeInteger(number) ? number : undefined;
}

export function compareTransfers(left: TokenTransfer, right: TokenTransfer): number {
  return left.blockNumber - right.blockNumber || left.logIndex - right.logIndex;
}
