import { ChainError } from '../rpc/chain-error';
import { opStackFeeGap, receiptFeeWei } from '../adapters/evm/evm-receipt-fee';
import { ReceiptFeeUnknown } from '../adapters/evm/receipts-without-fee';
import type { NetworkConfig } from '../networks/network.types';

/*
 * Blocks and receipts as the payout tracker reads them, block by block: a header names its hash,
 * its parent and its transactions; a receipt counts only where it names that very block. A node
 * that does not have a block answers null, which proves nothing (DESIGN.md section 4).
 */

/** The network a receipt is read on: its name for errors, whether it charges an L1 data fee. */
export type ReceiptNetwork = Pick<NetworkConfig, 'name' | 'opStack'>;

const HASH_FORMAT = /^0x[0-9a-fA-F]{64}$/;
const QUANTITY = /^0x[0-9a-fA-F]+$/;

/** A block read by number: where it sits in the chain, and its transactions in block order. */
export interface BlockHeader {
  number: number;
  /** 0x + 64 lowercase hex, as every hash here. */
  hash: string;
  parentHash: string;
  transactionHashes: string[];
}

/** What a receipt read from a block says of one of its transactions. */
export interface BlockReceipt {
  txHash: string;
  /** Status 1 (false: mined and reverted). */
  succeeded: boolean;
  /** What it cost its sender, in wei (receiptFeeWei: gasUsed x effectiveGasPrice, plus an OP-stack l1Fee). */
  feeBaseUnits: bigint;
}

/** A receipt as any node answers it, checked; null for a receipt not yet in a block. */
export interface ParsedReceipt extends BlockReceipt {
  blockHash: string;
  blockNumber: number;
}

/**
 * An `eth_getBlockByNumber(number, false)` answer, checked: null where the node has no such block.
 * A block of another number, or a malformed one, is a permanent ChainError (the node is wrong).
 */
export function parseBlockHeader(
  raw: unknown,
  number: number,
  network: string,
): BlockHeader | null {
  if (raw === null || raw === undefined) return null;
  const invalid = (reason: string) =>
    new ChainError('permanent', `eth_getBlockByNumber: invalid response (${reason})`, network);
  if (typeof raw !== 'object') throw invalid('not a block');
  const block = raw as Record<string, unknown>;
  if (quantity(block.number) !== number) throw invalid(`asked for ${number}, got another block`);
  const hash = hashOf(block.hash);
  const parentHash = hashOf(block.parentHash);
  if (!hash || !parentHash) throw invalid('no valid hash or parent hash');
  if (!Array.isArray(block.transactions)) throw invalid('no transaction list');
  const transactionHashes = block.transactions.map((entry) => {
    // Hashes when asked without bodies; some nodes send bodies all the same.
    const txHash = hashOf(typeof entry === 'string' ? entry : (entry as { hash?: unknown })?.hash);
    if (!txHash) throw invalid('a transaction without a valid hash');
    return txHash;
  });
  return { number, hash, parentHash, transactionHashes };
}

/**
 * One receipt, checked. Null for an answer that is no receipt of a mined transaction (null, or a
 * pending receipt without a block, as some nodes give). A receipt without a status or its gas is
 * a permanent ChainError: nothing is guessed. On an OP-stack network the fee includes `l1Fee`,
 * which a receipt (but a deposit's) must carry (review r9b, M3): one without it (or with an
 * operator fee, opStackFeeGap) is a ReceiptFeeUnknown, transient, so another URL is asked.
 */
export function parseReceipt(
  raw: unknown,
  network: ReceiptNetwork,
  method = 'eth_getTransactionReceipt',
): ParsedReceipt | null {
  if (raw === null || raw === undefined) return null;
  const invalid = (reason: string) =>
    new ChainError('permanent', `${method}: invalid response (${reason})`, network.name);
  if (typeof raw !== 'object') throw invalid('not a receipt');
  const receipt = raw as Record<string, unknown>;
  const blockHash = hashOf(receipt.blockHash);
  const blockNumber = quantity(receipt.blockNumber);
  if (blockHash === null || blockNumber === null) return null;
  const txHash = hashOf(receipt.transactionHash);
  if (!txHash) throw invalid('no transaction hash');
  // Receipts have a status since Byzantium (2017); every supported network is past it.
  if (receipt.status !== '0x1' && receipt.status !== '0x0')
    throw invalid('receipt without a status');
  const feeBaseUnits = receiptFeeWei(raw, network);
  if (feeBaseUnits === null) {
    const gap = opStackFeeGap(raw, network);
    if (gap !== null) throw new ReceiptFeeUnknown(txHash, network.name, `${method}: ${gap}`, null);
    throw invalid('no gasUsed or effectiveGasPrice');
  }
  return { txHash, blockHash, blockNumber, succeeded: receipt.status === '0x1', feeBaseUnits };
}

/**
 * An `eth_getBlockReceipts` answer that is not the block's receipts whole: too few or too many
 * (a node that lists system transactions otherwise than the header), a receipt of another block
 * or transaction (a backend on another branch), or an entry without a status or a fee. Transient:
 * another RPC URL, or another backend behind the balancer, may answer whole; once every URL was
 * asked, the caller reads the block's receipts one by one, each against the header (review r8,
 * F3: as permanent it stalled the run on that block for 30 looks, and no other URL was asked).
 */
export class BlockReceiptsRefused extends ChainError {
  constructor(message: string, network: string, cause?: unknown) {
    super('transient', message, network, cause);
    this.name = 'BlockReceiptsRefused';
  }
}

/**
 * The receipts of `wanted` (transactions of `block`) from an `eth_getBlockReceipts` answer for
 * that block. Null where the node does not have the block. Every receipt must be the block's
 * own: one per transaction of the header, in its order, each naming the header's hash and number.
 * An answer that differs (two views of the chain), or an entry that is no valid receipt, is a
 * BlockReceiptsRefused.
 */
export function receiptsOfBlock(
  raw: unknown,
  block: BlockHeader,
  wanted: readonly string[],
  network: ReceiptNetwork,
): Map<string, BlockReceipt> | null {
  if (raw === null || raw === undefined) return null;
  const differs = (reason: string, cause?: unknown) =>
    new BlockReceiptsRefused(
      `eth_getBlockReceipts: block ${block.number} answered ${reason}`,
      network.name,
      cause,
    );
  if (!Array.isArray(raw)) throw differs('no receipt list');
  if (raw.length !== block.transactionHashes.length) {
    throw differs(`${raw.length} receipts for ${block.transactionHashes.length} transactions`);
  }
  const want = new Set(wanted);
  const found = new Map<string, BlockReceipt>();
  for (const [index, entry] of raw.entries()) {
    let receipt: ParsedReceipt | null;
    try {
      receipt = parseReceipt(entry, network, 'eth_getBlockReceipts');
    } catch (error) {
      throw differs(`an invalid receipt (${(error as Error).message})`, error);
    }
    if (
      !receipt ||
      receipt.txHash !== block.transactionHashes[index] ||
      receipt.blockHash !== block.hash ||
      receipt.blockNumber !== block.number
    ) {
      throw differs('a receipt of another block or transaction');
    }
    if (want.has(receipt.txHash)) found.set(receipt.txHash, ownFields(receipt));
  }
  return found;
}

/** A receipt read alone, for a transaction of `block`: counted only if it names that block. */
export function receiptInBlock(
  receipt: ParsedReceipt | null,
  block: BlockHeader,
  txHash: string,
): BlockReceipt | null {
  if (!receipt || receipt.txHash !== txHash) return null;
  if (receipt.blockHash !== block.hash || receipt.blockNumber !== block.number) return null;
  return ownFields(receipt);
}

function ownFields(receipt: ParsedReceipt): BlockReceipt {
  return {
    txHash: receipt.txHash,
    succeeded: receipt.succeeded,
    feeBaseUnits: receipt.feeBaseUnits,
  };
}

function hashOf(value: unknown): string | null {
  return typeof value === 'string' && HASH_FORMAT.test(value) ? value.toLowerCase() : null;
}

function quantity(value: unknown): number | null {
  return typeof value === 'string' && QUANTITY.test(value) ? Number(value) : null;
}
