import { NetworkConfig } from '../networks/network.types';

/** One ERC-20/TRC-20 Transfer event, as the chain reports it. */
export interface TokenTransfer {
  /** Token contract in registry format (checksummed 0x on EVM, base58 T... on TRON). */
  tokenContract: string;
  /** Normalized addresses: checksummed 0x on EVM, base58 T... on TRON. */
  from: string;
  to: string;
  /**
   * `to` as addresses are looked up: lower-case 0x on EVM, where `to` is checksummed (a keccak
   * hash) only when first read, and most receivers of a block are never read (not ours, or ours
   * and stored already). Absent on TRON: base58 is compared as it is.
   */
  toKey?: string;
  /** Raw amount in the token's base units; convert with the token's decimals. */
  amountBaseUnits: bigint;
  /** EVM: 0x + 64 lowercase hex. TRON: 64 lowercase hex, no prefix (as TRON explorers show it). */
  txHash: string;
  /** Position of the log in its block (EVM) or in its transaction (TRON); unique with txHash. */
  logIndex: number;
  blockNumber: number;
  blockHash: string;
}

/** A block's hash and the hash of the block it names as its parent (getBlockHash's format). */
export interface BlockLink {
  hash: string;
  /** Null where the chain gives none (a genesis block). */
  parentHash: string | null;
  /** EVM: the header's logsBloom, for ChainAdapter.mayHoldTransfers. */
  logsBloom?: string;
}

/** Where and how a transaction was mined, as the chain reports it at the time of the call. */
export interface TransactionStatus {
  blockNumber: number;
  /** Same format as getBlockHash: 0x + 64 lowercase hex on EVM, 64 lowercase hex on TRON. */
  blockHash: string;
  /** False when the transaction was mined but failed (EVM status 0; TRON REVERT, OUT_OF_ENERGY, ...). */
  succeeded: boolean;
  /** head - blockNumber + 1, the head read by the same call: 1 in the head block itself. */
  confirmations: number;
}

/**
 * Everything the service asks of a chain. One implementation per chain family, one instance per
 * network; every method may throw ChainError (transient ones are worth retrying later).
 */
export interface ChainAdapter {
  readonly network: NetworkConfig;

  isValidAddress(address: string): boolean;

  /**
   * Pay address at external chain index `index` of an account xpub of this chain family
   * (checksummed 0x on EVM, base58 T... on TRON). Local, no request: throws the derivation's
   * Error or RangeError (not a ChainError) for an invalid xpub or index.
   */
  deriveAddress(xpub: string, index: number): string;

  /** Latest block number (not cached). */
  getHeadBlockNumber(): Promise<number>;

  /** Hash of the block at this height on the current canonical chain, or null beyond the head. */
  getBlockHash(blockNumber: number): Promise<string | null>;

  /** getBlockHash with the block's parent hash, from the same answer: to check blocks chain up. */
  getBlockLink(blockNumber: number): Promise<BlockLink | null>;

  /**
   * Transfer events of the given token contracts in blocks [fromBlock, toBlock], both inclusive,
   * ordered by (blockNumber, logIndex). The caller keeps ranges small (see maxScanRange).
   */
  scanTransfers(
    fromBlock: number,
    toBlock: number,
    tokenContracts: string[],
  ): Promise<TokenTransfer[]>;

  /**
   * Status of a transaction on the current canonical chain, or null when the chain does not know
   * it (not mined yet, dropped, or its block was reorged away). `txHash` in TokenTransfer format.
   */
  getTransactionStatus(txHash: string): Promise<TransactionStatus | null>;

  /**
   * The token contract's own `decimals()` (contract in registry format), read from the chain at
   * its head: what the registry's configured decimals must equal before transfers are credited.
   * Permanent ChainError when no contract answers it (no code at the address, a revert, or a
   * value that is no uint8); transient when the node could not be asked.
   */
  getTokenDecimals(contract: string): Promise<number>;

  /**
   * Calls `onHead` as each new block arrives, where the network offers a subscription (an EVM
   * network with a `wsUrl`), reconnecting by itself; null where it does not: the caller polls.
   */
  followHeads(onHead: HeadListener, onProblem: HeadsProblemListener): HeadSubscription | null;

  /**
   * Sends the next calls to the following RPC URL first (no-op with one URL). Calls stick to the
   * URL that answered last, which is right until that URL is the problem without failing: a
   * backup that answered during the first URL's outage and is behind, or stuck at one block.
   */
  preferNextProvider(): void;

  /**
   * False when the block's own header proves it holds no Transfer of these contracts (an EVM
   * logsBloom): an empty scanTransfers answer for it then needs no other proof. Absent where the
   * chain has no such summary. A load-balanced RPC may answer a scan from a backend that lacks
   * the newest blocks of the range, silently, so "no transfer found" is not a proof on its own.
   */
  mayHoldTransfers?(link: BlockLink, tokenContracts: string[]): boolean;

  /** Largest block range one scanTransfers call should cover on this network. */
  readonly maxScanRange: number;

  /** Releases connections; the adapter is not used afterwards. */
  close(): Promise<void>;
}

export type HeadListener = (blockNumber: number) => void;

/** Why a head subscription is down and how many connection attempts in a row have failed. */
export type HeadsProblemListener = (reason: string, failures: number) => void;

export interface HeadSubscription {
  close(): Promise<void>;
}
