import { TronWeb } from 'tronweb';
import { TronLog } from './tron-responses';

/** keccak256("Transfer(address,address,uint256)"), as TRON logs carry it: lowercase hex, no 0x. */
export const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

const AMOUNT_WORD = /^[0-9a-f]{64}$/;

export interface DecodedTransfer {
  from: string;
  to: string;
  amountBaseUnits: bigint;
}

/** A base58 T... contract as log addresses show it: 40 lowercase hex without the 41 prefix. */
export function toLogAddress(base58Address: string): string {
  return TronWeb.address.toHex(base58Address).slice(2).toLowerCase();
}

/** An address topic is a 32-byte word whose last 20 bytes are the address. */
function topicToAddress(topic: string): string {
  return TronWeb.address.fromHex(`41${topic.slice(24)}`);
}

/** The ERC-20 Transfer event (two indexed addresses, the amount as data), or null for any other log. */
export function decodeTransferLog(log: TronLog): DecodedTransfer | null {
  // Three topics and one data word: an ERC-721 Transfer (tokenId indexed) has four topics.
  if (log.topics.length !== 3 || log.topics[0] !== TRANSFER_TOPIC) return null;
  if (!AMOUNT_WORD.test(log.data)) return null;
  return {
    from: topicToAddress(log.topics[1]),
    to: topicToAddress(log.topics[2]),
    amountBaseUnits: BigInt(`0x${log.data}`),
  };
}
