/**
 * TEST DOUBLE: the fake TRON node's blocks and transactions as java-tron prints them
 * (visible=false): Util.printBlock, TransactionInfo, a pending transaction.
 */
import { FAILURE_MESSAGES, FakeFailure } from './execution';
import { isJson, Json, sha256, utf8Hex, word } from './wire';

export interface TriggerValue {
  data: string;
  owner_address: string;
  contract_address: string;
  call_value?: number;
}

export interface RawData {
  contract: Array<{
    parameter: { value: TriggerValue; type_url: string };
    type: 'TriggerSmartContract';
  }>;
  ref_block_bytes: string;
  ref_block_hash: string;
  expiration: number;
  fee_limit?: number;
  timestamp: number;
}

export interface BlockTransaction {
  ret: Array<{ contractRet: 'SUCCESS' | FakeFailure }>;
  /** Only on broadcast transactions. */
  signature?: string[];
  txID: string;
  /** RawData for addTransferBlock's transactions, as posted for broadcasts. */
  raw_data: unknown;
  raw_data_hex: string;
}

export interface FakeBlock {
  number: number;
  blockId: string;
  parentHash: string;
  timestamp: number;
  transactions: BlockTransaction[];
  infos: Json[];
}

export interface TransactionEntry {
  transaction: BlockTransaction;
  info: Json;
}

const WITNESS = '41' + 'be'.repeat(20);

/** Whether a posted transaction's raw_data.expiration is at or before `timestamp`. */
export function isExpiredAt(transaction: Json, timestamp: number): boolean {
  const expiration = isJson(transaction.raw_data) ? Number(transaction.raw_data.expiration) : NaN;
  return !(expiration > timestamp);
}

/** A pending transaction as gettransactionbyid prints it: as posted, without `ret`. */
export function pendingTransactionJson(txid: string, posted: Json): Json {
  const { signature, raw_data, raw_data_hex } = posted;
  return { signature, txID: txid, raw_data, raw_data_hex };
}

/**
 * TransactionInfo of a TriggerSmartContract, as gettransactioninfobyid and
 * gettransactioninfobyblocknum print it: `result` (SUCESS) and `log` left out when default/empty.
 */
export function executionInfo(
  id: string,
  blockNumber: number,
  blockTimestamp: number,
  contract: string,
  outcome: { logs: Json[]; failure?: FakeFailure },
): Json {
  const { logs, failure } = outcome;
  const energy = 29_631 * Math.max(logs.length, 1);
  return {
    id,
    fee: 345_000,
    blockNumber,
    blockTimeStamp: blockTimestamp,
    contractResult: [failure ? '' : word('1')],
    contract_address: contract.toLowerCase(),
    receipt: { energy_usage_total: energy, net_usage: 345, result: failure ?? 'SUCCESS' },
    ...(failure ? { result: 'FAILED', resMessage: utf8Hex(FAILURE_MESSAGES[failure]) } : {}),
    ...(failure || logs.length === 0 ? {} : { log: logs }),
  };
}

/**
 * Util.printBlock, visible=false; zero values (the genesis number) and empty lists left out.
 * Without transactions: /wallet/getblock with detail=false.
 */
export function blockJson(block: FakeBlock, withTransactions = true): Json {
  const rawHeader = {
    ...(block.number > 0 ? { number: block.number } : {}),
    txTrieRoot: sha256(block.transactions.map((transaction) => transaction.txID).join('')),
    witness_address: WITNESS,
    parentHash: block.parentHash,
    version: 32,
    timestamp: block.timestamp,
  };
  return {
    blockID: block.blockId,
    block_header: {
      raw_data: rawHeader,
      witness_signature: sha256(block.blockId).repeat(2) + '00',
    },
    ...(withTransactions && block.transactions.length ? { transactions: block.transactions } : {}),
  };
}
