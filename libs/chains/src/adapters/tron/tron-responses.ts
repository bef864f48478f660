import { decodeTronMessage } from '../../payouts/node-messages';
import { TronResponseError } from './tron-errors';

// Shapes of java-tron's HTTP API (FullNode, visible=false: hex addresses without 0x) that the
// adapter reads, checked at runtime: tronweb's provider returns whatever JSON the node sent.

export interface TronBlock {
  number: number;
  /** 64 lowercase hex; its first 8 bytes are the block number. */
  blockId: string;
  /** The parent block's id; null where the header has none (a genesis block). */
  parentHash: string | null;
  /** Transaction ids in block order. */
  transactionIds: string[];
}

export interface TronLog {
  /** Emitting contract: 40 lowercase hex, without the 41 prefix. */
  address: string;
  /** 64 lowercase hex each. */
  topics: string[];
  /** Lowercase hex, no 0x. */
  data: string;
}

export interface TronTransactionInfo {
  id: string;
  succeeded: boolean;
  logs: TronLog[];
}

/** What gettransactioninfobyid tells of a mined transaction. */
export interface TronTransactionOutcome {
  blockNumber: number;
  succeeded: boolean;
}

type JsonObject = Record<string, unknown>;

const HASH_FORMAT = /^[0-9a-fA-F]{64}$/;
const LOG_ADDRESS_FORMAT = /^[0-9a-fA-F]{40}$/;
const HEX_FORMAT = /^([0-9a-fA-F]{2})*$/;
const WORD_FORMAT = /^[0-9a-fA-F]{64}$/;
// java-tron's own rate limiter answers HTTP 200 with this error (RateLimiterServlet).
const NODE_BUSY_MESSAGE = 'lack of computing resources';
// Result codes of a node that could not serve the call now (response_code in java-tron's API
// protocol); every other refusal (CONTRACT_VALIDATE_ERROR, ...) is about the call itself.
const BUSY_NODE_CODES = new Set([
  'SERVER_BUSY',
  'NO_CONNECTION',
  'NOT_ENOUGH_EFFECTIVE_CONNECTION',
]);

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function malformed(what: string): TronResponseError {
  return new TronResponseError(`malformed response: ${what}`);
}

/** java-tron reports failures as HTTP 200 with {"Error": "class ... : message"}. */
export function throwIfNodeError(value: unknown): void {
  if (!isObject(value) || typeof value.Error !== 'string') return;
  throw new TronResponseError(
    `node error: ${value.Error}`,
    value.Error.includes(NODE_BUSY_MESSAGE),
  );
}

function hash(value: unknown, what: string): string {
  if (typeof value !== 'string' || !HASH_FORMAT.test(value))
    throw malformed(`${what} is not a hash`);
  return value.toLowerCase();
}

function optionalArray(value: unknown, what: string): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw malformed(`${what} is not an array`);
  return value;
}

/** A block from getnowblock or getblockbynum; null for getblockbynum's `{}` beyond the head. */
export function parseBlock(value: unknown): TronBlock | null {
  throwIfNodeError(value);
  if (!isObject(value)) throw malformed('block is not an object');
  if (Object.keys(value).length === 0) return null;
  const blockId = hash(value.blockID, 'blockID');
  const header = value.block_header;
  if (!isObject(header) || !isObject(header.raw_data)) throw malformed('block has no header');
  // Protobuf JSON leaves out zero values, so the genesis block has no number.
  const number = header.raw_data.number ?? 0;
  if (!Number.isSafeInteger(number) || (number as number) < 0) throw malformed('block number');
  // The block id starts with the block number: a cheap check that this is the block we read.
  if (Number.parseInt(blockId.slice(0, 16), 16) !== number) {
    throw malformed(`blockID ${blockId} does not match block number ${String(number)}`);
  }
  const transactionIds = optionalArray(value.transactions, 'transactions').map((transaction) =>
    hash(isObject(transaction) ? transaction.txID : undefined, 'txID'),
  );
  const parentHash =
    header.raw_data.parentHash === undefined
      ? null
      : hash(header.raw_data.parentHash, 'parentHash');
  return { number: number as number, blockId, parentHash, transactionIds };
}

function parseLog(value: unknown): TronLog {
  if (!isObject(value)) throw malformed('log is not an object');
  const { address = '', data = '' } = value;
  if (typeof address !== 'string' || !LOG_ADDRESS_FORMAT.test(address))
    throw malformed('log address');
  if (typeof data !== 'string' || !HEX_FORMAT.test(data)) throw malformed('log data');
  const topics = optionalArray(value.topics, 'log topics').map((topic) => hash(topic, 'log topic'));
  return { address: address.toLowerCase(), topics, data: data.toLowerCase() };
}

function succeeded(info: JsonObject): boolean {
  // Top-level `result` is FAILED for failed transactions (SUCESS, the default, is left out);
  // `receipt.result` is the contract outcome (SUCCESS, REVERT, OUT_OF_ENERGY, ...) when present.
  if (info.result !== undefined && info.result !== 'SUCESS') return false;
  const receipt = isObject(info.receipt) ? info.receipt : {};
  return receipt.result === undefined || receipt.result === 'SUCCESS';
}

/** gettransactioninfobyblocknum: an array in block order; `{}` for block 0 (java-tron's answer for num <= 0). */
export function parseTransactionInfos(value: unknown, blockNumber: number): TronTransactionInfo[] {
  throwIfNodeError(value);
  if (isObject(value) && Object.keys(value).length === 0) return [];
  if (!Array.isArray(value)) throw malformed('transaction infos are not an array');
  return value.map((info: unknown) => {
    if (!isObject(info)) throw malformed('transaction info is not an object');
    if (info.blockNumber !== blockNumber) {
      throw malformed(
        `transaction info of block ${String(info.blockNumber)} in block ${blockNumber}`,
      );
    }
    return {
      id: hash(info.id, 'transaction id'),
      succeeded: succeeded(info),
      logs: optionalArray(info.log, 'log').map(parseLog),
    };
  });
}

/**
 * gettransactioninfobyid: `{}` (null here) while the node has no execution result for the id,
 * i.e. the transaction is not in a block of its chain (pending, expired or reorged away).
 */
export function parseTransactionOutcome(
  value: unknown,
  transactionId: string,
): TronTransactionOutcome | null {
  throwIfNodeError(value);
  if (!isObject(value)) throw malformed('transaction info is not an object');
  if (Object.keys(value).length === 0) return null;
  if (hash(value.id, 'transaction id') !== transactionId) {
    throw malformed('transaction info of another transaction');
  }
  // Transactions live in blocks >= 1, so a present number is never the (omitted) zero.
  const { blockNumber } = value;
  if (typeof blockNumber !== 'number' || !Number.isSafeInteger(blockNumber) || blockNumber < 1) {
    throw malformed('transaction info without a block number');
  }
  return { blockNumber, succeeded: succeeded(value) };
}

/**
 * triggerconstantcontract of a view function returning one 32-byte word (decimals()). The node's
 * refusal (`result.result` not true: no contract at the address, "Smart contract is not exist.")
 * and a call that failed inside the contract (java-tron answers result true, the transaction's
 * `ret` FAILED and a message such as "REVERT opcode executed") are permanent: asking again, or
 * another node, gets the same answer.
 */
export function parseConstantWord(value: unknown, what: string): bigint {
  throwIfNodeError(value);
  if (!isObject(value) || !isObject(value.result)) throw malformed(`${what} without a result`);
  const { result } = value;
  if (result.result !== true) {
    const code = typeof result.code === 'string' ? result.code : 'no code';
    throw new TronResponseError(
      `${what} refused: ${code} ${decodeTronMessage(result.message)}`,
      BUSY_NODE_CODES.has(code),
    );
  }
  const transaction = isObject(value.transaction) ? value.transaction : {};
  const [outcome] = optionalArray(transaction.ret, 'transaction ret');
  if (isObject(outcome) && outcome.ret === 'FAILED') {
    throw new TronResponseError(`${what} failed: ${decodeTronMessage(result.message)}`);
  }
  const words = optionalArray(value.constant_result, 'constant_result');
  if (words.length !== 1 || typeof words[0] !== 'string' || !WORD_FORMAT.test(words[0])) {
    throw malformed(`${what} did not return one 32-byte word`);
  }
  return BigInt(`0x${words[0]}`);
}
