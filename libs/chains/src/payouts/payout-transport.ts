import { TransactionStatus } from '../adapters/chain-adapter';
import { NetworkConfig } from '../networks/network.types';
import { BlockHeader, BlockReceipt } from './evm-block-receipts';
import { HotWalletKey } from './hot-wallet-key';

/**
 * What the payout processor asks of a chain to send tokens from a hot wallet. Reads and broadcasts
 * go to the network's RPC URLs with the same timeouts, retries and failover as ChainAdapter, and
 * throw ChainError (transient: the outcome is unknown, try again later). Signing is local.
 */

/** One token transfer to make: amounts in the token's base units. */
export interface TokenTransferOrder {
  /** Registry format: checksummed 0x on EVM, base58 T... on TRON. */
  tokenContract: string;
  /** Same format as tokenContract. */
  to: string;
  amountBaseUnits: bigint;
}

/** EIP-1559 fee fields, in wei. */
export interface EvmFees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** A signed transaction, exactly as it will be (re)broadcast. Stored before the first broadcast. */
export interface SignedTransfer {
  /** ChainAdapter format: 0x + 64 lowercase hex on EVM, 64 lowercase hex on TRON. */
  txHash: string;
  /** EVM: the 0x-hex signed serialized transaction. TRON: the signed transaction as JSON text. */
  rawTransaction: string;
  /** EVM only (null on TRON). */
  nonce: number | null;
  fees: EvmFees | null;
  gasLimit: bigint | null;
  /** TRON only: raw_data.expiration (null on EVM). */
  expiresAt: Date | null;
}

/** What a node said to a broadcast. A transport failure (timeout, 5xx) throws ChainError instead. */
export type BroadcastResult =
  /** Accepted into the node's pool now. */
  | { kind: 'accepted' }
  /** The node already has this very transaction (pool or chain): as good as accepted. */
  | { kind: 'already_known' }
  /** EVM: the nonce is already used on chain, by this transaction or by another one. */
  | { kind: 'nonce_too_low' }
  /**
   * EVM: the fees are too low for the node: another transaction with this nonce is pending and
   * pays at least as much (replacement underpriced), or the bid is below the pool's minimum or
   * the block's base fee. A higher bid may be taken.
   */
  | { kind: 'underpriced' }
  /** TRON: the transaction is past its expiration (or its reference block is unknown). */
  | { kind: 'expired' }
  /**
   * Refused for good as it is (insufficient funds for gas, bad signature, gas limit, ...): a
   * higher fee would not help. `reason` is the node's word, short, without URLs or raw bytes.
   */
  | { kind: 'rejected'; reason: string };

/**
 * The transaction that used a nonce of a wallet, read from the block that holds it: a positive
 * proof of who took the nonce, as of a node that has that block.
 */
export interface NonceConsumer {
  /** 0x + 64 lowercase hex. */
  txHash: string;
  blockNumber: number;
  /**
   * The block read (lowercase): one backend's word, which may be a block that lost a fork. A
   * caller acting on the proof checks it against the chain it follows (review r8, F2).
   */
  blockHash: string;
  /** head - blockNumber + 1, the head read after the block (another backend's, maybe). */
  confirmations: number;
}

export type TransactionLookup =
  /** Neither in the node's pool nor on its canonical chain. */
  | { state: 'unknown' }
  /** In the node's pool, not mined. */
  | { state: 'pending' }
  | {
      state: 'mined';
      status: TransactionStatus;
      /**
       * What the transaction cost its sender, in base units of the network's native coin (wei,
       * sun), read from the same receipt: EVM gasUsed × effectiveGasPrice plus the L1 data fee
       * where the receipt carries one, TRON the transaction info's `fee`. Reverted ones pay too.
       */
      feeBaseUnits: bigint;
    };

/** A wallet's holdings in base units: the token, and the native coin that pays fees (wei, sun). */
export interface WalletBalances {
  token: bigint;
  native: bigint;
}

/** EVM: balances and the wallet's mined transaction count, all as of one block. */
export interface WalletStateAtBlock extends WalletBalances {
  blockNumber: number;
  /** Transactions of the wallet mined up to the block: nonces below it are in the balances. */
  minedCount: number;
}

interface PayoutTransportBase {
  readonly network: NetworkConfig;
  /** The address of a private key on this chain family (checksummed 0x, base58 T...). */
  balances(address: string, tokenContract: string): Promise<WalletBalances>;
  broadcast(rawTransaction: string): Promise<BroadcastResult>;
  lookup(txHash: string): Promise<TransactionLookup>;
  close(): Promise<void>;
}

export interface EvmPayoutTransport extends PayoutTransportBase {
  readonly family: 'EVM';
  /**
   * Balances and mined count read at one block number (a load-balanced RPC may answer each read
   * from another backend; a number pins them to one state of the chain).
   */
  walletStateAtBlock(address: string, tokenContract: string): Promise<WalletStateAtBlock>;
  /** Current fee suggestion (base fee headroom plus tip), before any cap. */
  suggestFees(): Promise<EvmFees>;
  /** Gas for this transfer from `from`, with a safety margin. */
  estimateTransferGas(from: string, order: TokenTransferOrder): Promise<bigint>;
  /** Transactions of `address` mined up to `blockTag` (the next nonce at that block). */
  transactionCount(address: string, blockTag: number | 'latest' | 'pending'): Promise<number>;
  /** The node's head block number (a load-balanced RPC answers from backends at other heights). */
  headBlockNumber(): Promise<number>;
  /** The block at `number` with its transactions' hashes; null where the node has no such block. */
  blockHeader(number: number): Promise<BlockHeader | null>;
  /**
   * The block with this hash, `number` high: the same on every node that has it (a hash names
   * one block), null where the node has not got it.
   */
  blockHeaderByHash(hash: string, number: number): Promise<BlockHeader | null>;
  /**
   * The receipts of `txHashes`, transactions of `block`, each read as that block's (it names the
   * header's hash and number): one `eth_getBlockReceipts` for the block where that is cheaper
   * than a receipt each, a receipt each otherwise or where the node lacks the method (or takes
   * no block hash). Null when the node has not got the block or one of the receipts in it:
   * nothing is proven then. A receipt no URL answers with its fee (ReceiptFeeUnknown: an OP-stack
   * one without l1Fee) is left out of the map, the others kept: absent proves nothing, its
   * transaction is looked up alone. No call for no hashes.
   */
  receiptsIn(block: BlockHeader, txHashes: string[]): Promise<Map<string, BlockReceipt> | null>;
  /**
   * The transaction from `address` with `nonce`, found in the first block after which the
   * wallet's count passes the nonce and read from that block; null without that proof (the nonce
   * is unused as far as this answer goes, or the node that answered lacks the block).
   */
  nonceConsumer(address: string, nonce: number): Promise<NonceConsumer | null>;
  /** Local: an EIP-1559 transaction calling transfer(to, amount) on the token. No RPC. */
  sign(
    key: HotWalletKey,
    order: TokenTransferOrder,
    params: { nonce: number; fees: EvmFees; gasLimit: bigint },
  ): SignedTransfer;
  /** Local: a zero-value send to the key's own address (no data, 21000 gas) with `nonce`. */
  signCancel(key: HotWalletKey, params: { nonce: number; fees: EvmFees }): SignedTransfer;
}

export interface TronPayoutTransport extends PayoutTransportBase {
  readonly family: 'TRON';
  /**
   * Builds a TRC-20 transfer(to, amount) with this fee_limit (asks the node for the reference
   * block) and signs it locally with tronweb.
   */
  buildAndSign(
    key: HotWalletKey,
    order: TokenTransferOrder,
    feeLimitSun: bigint,
  ): Promise<SignedTransfer>;
  /**
   * True only with a positive proof that the signed transaction (`rawTransaction`, as stored) can
   * never be mined: on one configured RPC URL, every block from before the transaction was built
   * to the first block past its expiration was read, chains up, is solidified, and does not hold
   * it. A node that lacks a block or cannot be asked proves nothing: false.
   */
  provenExpired(rawTransaction: string): Promise<boolean>;
}

export type PayoutTransport = EvmPayoutTransport | TronPayoutTransport;
