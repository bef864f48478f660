import { utils } from 'tronweb';
import { TronResponseError } from '../adapters/tron/tron-errors';
import { parseBlock, throwIfNodeError, TronBlock } from '../adapters/tron/tron-responses';
import { decodeTronMessage } from './node-messages';

// Shapes of the java-tron HTTP answers (visible=false) the payout transport reads, checked at
// runtime: tronweb's provider returns whatever JSON the node sent.

type JsonObject = Record<string, unknown>;

/** A transaction as triggersmartcontract built it: what gets signed. */
export interface UnsignedTronTransaction {
  visible: false;
  txID: string;
  raw_data: JsonObject;
  raw_data_hex: string;
}

/** What we asked triggersmartcontract for; addresses as 41-prefixed lowercase hex. */
export interface RequestedCall {
  owner: string;
  contract: string;
  /** Selector and ABI-encoded parameters, lowercase hex without 0x. */
  data: string;
  feeLimit: number;
}

const HASH_FORMAT = /^[0-9a-fA-F]{64}$/;
/** The longest life a built transaction may have (java-tron's default is 60 s). */
export const MAX_TRANSACTION_LIFETIME_MS = 10 * 60_000;
const WORD_FORMAT = /^[0-9a-fA-F]{64}$/;
const txCheck: (transaction: unknown) => boolean = utils.transaction.txCheck;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function malformed(what: string): TronResponseError {
  return new TronResponseError(`malformed response: ${what}`);
}

/** `{"result": {"result": true}, ...}`, or the node's refusal ({"result": {"code", "message"}}). */
function requireSuccess(value: unknown, what: string): JsonObject {
  throwIfNodeError(value);
  if (!isObject(value) || !isObject(value.result)) throw malformed(`${what} without a result`);
  if (value.result.result !== true) {
    const code = typeof value.result.code === 'string' ? value.result.code : 'no code';
    throw new TronResponseError(
      `${what} refused: ${code} ${decodeTronMessage(value.result.message)}`,
    );
  }
  return value;
}

/**
 * The unsigned transaction of triggersmartcontract, checked to be exactly the call we asked for:
 * its id and raw_data_hex encode its raw_data (tronweb's txCheck), and raw_data calls this
 * contract from this owner with this data and fee limit, moving no TRX. A node that built
 * anything else never gets it signed.
 */
export function parseUnsignedTransfer(
  value: unknown,
  requested: RequestedCall,
): UnsignedTronTransaction {
  const { transaction } = requireSuccess(value, 'triggersmartcontract');
  if (!isObject(transaction) || !isObject(transaction.raw_data)) {
    throw malformed('triggersmartcontract returned no transaction');
  }
  const { txID, raw_data: rawData, raw_data_hex: rawDataHex } = transaction;
  if (typeof txID !== 'string' || !HASH_FORMAT.test(txID) || typeof rawDataHex !== 'string') {
    throw malformed('transaction without txID or raw_data_hex');
  }
  const unsigned: UnsignedTronTransaction = {
    visible: false,
    txID: txID.toLowerCase(),
    raw_data: rawData,
    raw_data_hex: rawDataHex.toLowerCase(),
  };
  const mismatch = describeMismatch(unsigned, requested);
  if (mismatch) throw malformed(`the node built another transaction than asked (${mismatch})`);
  return unsigned;
}

function describeMismatch(
  transaction: UnsignedTronTransaction,
  requested: RequestedCall,
): string | null {
  const rawData = transaction.raw_data;
  const contracts = Array.isArray(rawData.contract) ? rawData.contract : [];
  const [call] = contracts as unknown[];
  if (contracts.length !== 1 || !isObject(call) || call.type !== 'TriggerSmartContract') {
    return 'not one TriggerSmartContract';
  }
  const parameter = isObject(call.parameter) ? call.parameter : {};
  const fields = isObject(parameter.value) ? parameter.value : {};
  const lower = (field: unknown) => (typeof field === 'string' ? field.toLowerCase() : field);
  if (lower(fields.owner_address) !== requested.owner) return 'owner';
  if (lower(fields.contract_address) !== requested.contract) return 'contract';
  if (lower(fields.data) !== requested.data) return 'call data';
  for (const payment of ['call_value', 'call_token_value', 'token_id']) {
    if (fields[payment] !== undefined && fields[payment] !== 0) return payment;
  }
  if (rawData.fee_limit !== requested.feeLimit) return 'fee_limit';
  const { expiration, timestamp } = rawData;
  if (typeof expiration !== 'number' || !Number.isSafeInteger(expiration) || expiration <= 0) {
    return 'expiration';
  }
  // java-tron lets a transaction live 60 s past its reference block (its head when it builds).
  // A longer life would put its reference block out of reach of an expiry proof.
  if (
    typeof timestamp !== 'number' ||
    !Number.isSafeInteger(timestamp) ||
    expiration - timestamp > MAX_TRANSACTION_LIFETIME_MS
  ) {
    return 'expiration (more than 10 minutes after the build time)';
  }
  if (!encodesRawData(transaction)) return 'txID or raw_data_hex';
  return null;
}

function encodesRawData(transaction: UnsignedTronTransaction): boolean {
  try {
    return txCheck(transaction);
  } catch {
    return false; // raw_data tronweb cannot encode
  }
}

/** gettransactionbyid: the transaction, pending or mined; `{}` when the node does not know it. */
export function parseTransactionKnown(value: unknown, transactionId: string): boolean {
  throwIfNodeError(value);
  if (!isObject(value)) throw malformed('transaction is not an object');
  if (Object.keys(value).length === 0) return false;
  if (typeof value.txID !== 'string' || value.txID.toLowerCase() !== transactionId) {
    throw malformed('transaction of another id');
  }
  return true;
}

/** triggerconstantcontract of a function returning one uint256 (balanceOf). */
export function parseUint256Result(value: unknown): bigint {
  const answer = requireSuccess(value, 'triggerconstantcontract');
  const [word] = Array.isArray(answer.constant_result) ? answer.constant_result : [];
  if (typeof word !== 'string' || !WORD_FORMAT.test(word)) {
    throw malformed('constant_result is not one uint256');
  }
  return BigInt(`0x${word}`);
}

/** getaccount: the TRX balance in sun; `{}` (no account yet) and a left-out balance are 0. */
export function parseAccountBalance(value: unknown): bigint {
  throwIfNodeError(value);
  if (!isObject(value)) throw malformed('account is not an object');
  const { balance = 0 } = value;
  if (typeof balance !== 'number' || !Number.isSafeInteger(balance) || balance < 0) {
    throw malformed('account balance');
  }
  return BigInt(balance);
}

/** The header timestamp (ms) of the block of getnowblock (here: of /walletsolidity). */
/** A block with its timestamp, or null for a block the node does not have ({}). */
export function parseTimedBlock(value: unknown): (TronBlock & { timestamp: number }) | null {
  const block = parseBlock(value);
  return block ? { ...block, timestamp: parseBlockTimestamp(value) } : null;
}

/**
 * What bounds where the stored signed transaction may be mined: its id, its reference block (the
 * low 16 bits of its number and bytes 8-16 of its id; java-tron takes it only in a chain that holds
 * that block, so only in a later block) and its expiration (ms; no block past it may take it).
 */
export function parseSignedWindow(rawTransaction: string): {
  txID: string;
  referenceLow: number;
  referenceHash: string;
  expiration: number;
} {
  let value: unknown;
  try {
    value = JSON.parse(rawTransaction);
  } catch {
    throw malformed('stored transaction is not JSON');
  }
  if (!isObject(value) || !isObject(value.raw_data)) throw malformed('stored transaction');
  const { expiration, ref_block_bytes: bytes, ref_block_hash: hash } = value.raw_data;
  const txID = typeof value.txID === 'string' ? value.txID.toLowerCase() : '';
  if (!HASH_FORMAT.test(txID)) throw malformed('stored transaction id');
  if (typeof expiration !== 'number' || !Number.isSafeInteger(expiration)) {
    throw malformed('stored transaction expiration');
  }
  if (typeof bytes !== 'string' || !/^[0-9a-fA-F]{4}$/.test(bytes)) {
    throw malformed('stored transaction ref_block_bytes');
  }
  if (typeof hash !== 'string' || !/^[0-9a-fA-F]{16}$/.test(hash)) {
    throw malformed('stored transaction ref_block_hash');
  }
  return {
    txID,
    referenceLow: Number.parseInt(bytes, 16),
    referenceHash: hash.toLowerCase(),
    expiration,
  };
}

export function parseBlockTimestamp(value: unknown): number {
  if (!parseBlock(value)) throw malformed('no block');
  const header = (value as { block_header: { raw_data: JsonObject } }).block_header.raw_data;
  const { timestamp = 0 } = header;
  if (typeof timestamp !== 'number' || !Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw malformed('block timestamp');
  }
  return timestamp;
}
