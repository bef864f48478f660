import { ChainError } from '../../rpc/chain-error';
import { TransactionStatus } from '../chain-adapter';
import { TronNodeClient } from './tron-node-client';
import { parseBlock, parseTransactionOutcome, TronBlock } from './tron-responses';
import { parseTransactionFeeSun } from './tron-transaction-fee';

// Reads of a java-tron full node that both the deposit adapter and the payout transport make.

const TRANSACTION_ID_FORMAT = /^[0-9a-fA-F]{64}$/;

export function tronError(
  kind: 'transient' | 'permanent',
  message: string,
  network: string,
): ChainError {
  return new ChainError(kind, `TRON ${message}`, network);
}

/** The id in TokenTransfer format (64 lowercase hex), or a permanent ChainError. */
export function checkedTransactionId(txHash: string, network: string): string {
  if (!TRANSACTION_ID_FORMAT.test(txHash)) {
    throw tronError(
      'permanent',
      `not a transaction id (64 hex): ${JSON.stringify(txHash)}`,
      network,
    );
  }
  return txHash.toLowerCase();
}

export async function readHeadBlockNumber(node: TronNodeClient, network: string): Promise<number> {
  return (await readHead(node, network)).number;
}

/** The head block number and the position of the URL that answered (to pin later reads to it). */
export async function readHead(
  node: TronNodeClient,
  network: string,
): Promise<{ number: number; source: number }> {
  const { value: head, source } = await node.requestWithSource(
    'wallet/getnowblock',
    {},
    parseBlock,
  );
  if (!head) throw tronError('permanent', 'getnowblock returned no block', network);
  return { number: head.number, source };
}

export function readBlock(
  node: TronNodeClient,
  blockNumber: number,
  pinned?: number,
): Promise<TronBlock | null> {
  return node.request('wallet/getblockbynum', { num: blockNumber }, parseBlock, pinned);
}

/**
 * Three reads: the transaction info (block number and outcome, but no block hash), the block
 * (its hash; its transaction list proves both reads saw the same chain) and then the head.
 * Null while the node has no execution result for the id (pending, expired or reorged away).
 */
export async function readTransactionStatus(
  node: TronNodeClient,
  transactionId: string,
  network: string,
): Promise<TransactionStatus | null> {
  return (await readMinedTransaction(node, transactionId, network))?.status ?? null;
}

/** readTransactionStatus, and the fee the transaction paid (sun) from the same info. */
export async function readMinedTransaction(
  node: TronNodeClient,
  transactionId: string,
  network: string,
): Promise<{ status: TransactionStatus; feeSun: bigint } | null> {
  const outcome = await node.request(
    'wallet/gettransactioninfobyid',
    { value: transactionId },
    (value) => {
      const parsed = parseTransactionOutcome(value, transactionId);
      return parsed && { ...parsed, feeSun: parseTransactionFeeSun(value) };
    },
  );
  if (!outcome) return null;
  const { blockNumber, succeeded, feeSun } = outcome;
  const block = await readBlock(node, blockNumber);
  if (!block?.transactionIds.includes(transactionId)) {
    throw tronError(
      'transient',
      `block ${blockNumber} changed while it was read (reorg?)`,
      network,
    );
  }
  const head = await readHeadBlockNumber(node, network);
  if (head < blockNumber) {
    throw tronError('transient', `block ${blockNumber} is beyond the head (${head})`, network);
  }
  return {
    status: {
      blockNumber,
      blockHash: block.blockId,
      succeeded,
      confirmations: head - blockNumber + 1,
    },
    feeSun,
  };
}
