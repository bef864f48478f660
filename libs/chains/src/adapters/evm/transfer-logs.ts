import { getAddress, id, Log } from 'ethers';
import { TokenTransfer } from '../chain-adapter';

/** topic0 of `Transfer(address indexed from, address indexed to, uint256 value)`. */
export const ERC20_TRANSFER_TOPIC = id('Transfer(address,address,uint256)');

const HASH_FORMAT = /^0x[0-9a-f]{64}$/;
const ADDRESS_TOPIC_FORMAT = /^0x0{24}[0-9a-f]{40}$/;
const UINT256_DATA_FORMAT = /^0x[0-9a-f]{64}$/;

/** A log the node returned that cannot be what we asked for: the response is invalid. */
export class InvalidLogError extends Error {}

/**
 * Decodes one ERC-20 Transfer log, or returns undefined for a log that only shares the topic:
 * ERC-721 Transfer has the same signature with the token id as a third indexed topic. Throws
 * InvalidLogError when the node's answer cannot be a Transfer log at all.
 */
export function decodeTransferLog(log: Log): TokenTransfer | undefined {
  // Flagged by a node when its block was reorged away while the query ran.
  if (log.removed) return undefined;
  const topics = log.topics.map((topic) => topic.toLowerCase());
  if (topics[0] !== ERC20_TRANSFER_TOPIC) throw new InvalidLogError('log of another event');
  if (topics.length !== 3) return undefined;
  const data = log.data.toLowerCase();
  if (!UINT256_DATA_FORMAT.test(data)) return undefined;
  if (!ADDRESS_TOPIC_FORMAT.test(topics[1]) || !ADDRESS_TOPIC_FORMAT.test(topics[2])) {
    throw new InvalidLogError('Transfer log with malformed address topics');
  }

  const txHash = log.transactionHash.toLowerCase();
  const blockHash = log.blockHash.toLowerCase();
  if (!HASH_FORMAT.test(txHash) || !HASH_FORMAT.test(blockHash)) {
    throw new InvalidLogError('log without a valid transaction or block hash');
  }
  if (!Number.isSafeInteger(log.index) || log.index < 0) {
    throw new InvalidLogError('log without a valid position');
  }
  return {
    tokenContract: getAddress(log.address),
    from: topicToAddress(topics[1]),
    to: topicToAddress(topics[2]),
    amountBaseUnits: BigInt(data),
    txHash,
    // ethers 6 calls the log's position in its block `index` (`logIndex` is undefined).
    logIndex: log.index,
    blockNumber: log.blockNumber,
    blockHash,
  };
}

function topicToAddress(topic: string): string {
  return getAddress(`0x${topic.slice(-40)}`);
}

export function compareTransfers(left: TokenTransfer, right: TokenTransfer): number {
  return left.blockNumber - right.blockNumber || left.logIndex - right.logIndex;
}
