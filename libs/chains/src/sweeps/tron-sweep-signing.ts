import { TronWeb, utils } from 'tronweb';

// Local building and signing of the sweep's TRON transactions with tronweb: the node is asked
// only for its head block (the TaPoS reference), so no node ever builds what we sign.

/** A key and the address it must belong to (HotWalletKey is one). */
export interface TronSigningKey {
  readonly address: string;
  privateKey(): string;
}

/** A signed transaction, exactly as it will be (re)broadcast: stored before the first broadcast. */
export interface SignedTronTransaction {
  /** 64 lowercase hex: the transaction id. */
  txHash: string;
  /** The signed transaction as JSON text (what /wallet/broadcasttransaction takes). */
  rawTransaction: string;
  /** raw_data.expiration: no block after it may take the transaction. */
  expiresAt: Date;
}

/** The TaPoS fields tronweb takes as `blockHeader`, from the head block. */
export interface ReferenceBlock {
  ref_block_bytes: string;
  ref_block_hash: string;
  expiration: number;
  timestamp: number;
}

// java-tron's default: a transaction it builds lives 60 s past its reference block (the head).
const LIFETIME_MS = 60_000;
const PRIVATE_KEY_FORMAT = /^(0x)?([0-9a-fA-F]{64})$/;
// Constant.MAX_RESULT_SIZE_IN_TX: java-tron counts 64 bytes for each contract's result.
const MAX_RESULT_SIZE_IN_TX = 64;
const SIGNATURE_BYTES = 65;

// tronweb's crypto helper is typed loosely: the one we use, as we use it.
const signTransaction: (privateKey: string, transaction: object) => { signature: string[] } =
  utils.crypto.signTransaction;

export function referenceBlock(head: {
  number: number;
  blockId: string;
  timestamp: number;
}): ReferenceBlock {
  return {
    // TaPoS: bytes 6-7 of the block number and bytes 8-15 of the block id.
    ref_block_bytes: head.number.toString(16).padStart(16, '0').slice(12),
    ref_block_hash: head.blockId.slice(16, 32),
    expiration: head.timestamp + LIFETIME_MS,
    timestamp: head.timestamp,
  };
}

/** The key's 64 hex digits, checked to be the key of `address` (when given). */
export function checkedPrivateKey(privateKey: string, address: string | undefined): string {
  const hex = PRIVATE_KEY_FORMAT.exec(privateKey)?.[2];
  const derived = hex ? TronWeb.address.fromPrivateKey(hex) : false;
  if (!hex || !derived) throw new Error('TRON: the key is not a valid private key.');
  if (address !== undefined && derived !== address) {
    throw new Error(`TRON: the key does not belong to ${JSON.stringify(address)}.`);
  }
  return hex;
}

export function addressOfKey(privateKey: string): string {
  const hex = checkedPrivateKey(privateKey, undefined);
  return TronWeb.address.fromPrivateKey(hex) as string;
}

/** Signs a tronweb-built transaction; the error never carries the library's words (nor the key). */
export function signed(
  privateKey: string,
  transaction: { txID: string; raw_data: { expiration: number } },
): SignedTronTransaction {
  let signedTransaction: object;
  try {
    signedTransaction = signTransaction(privateKey, { ...transaction });
  } catch {
    throw new Error('TRON: signing the transaction failed.');
  }
  return {
    txHash: transaction.txID.toLowerCase(),
    rawTransaction: JSON.stringify(signedTransaction),
    expiresAt: new Date(transaction.raw_data.expiration),
  };
}

function varintLength(value: number): number {
  let length = 1;
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 0x80)) length += 1;
  return length;
}

/**
 * The bandwidth (bytes) java-tron charges for a transaction with this raw_data and one signature
 * (BandwidthProcessor.consume): the serialized transaction without its result, plus 64.
 */
export function bandwidthOf(rawDataHex: string): bigint {
  const rawLength = rawDataHex.length / 2;
  const signature = 1 + varintLength(SIGNATURE_BYTES) + SIGNATURE_BYTES;
  return BigInt(1 + varintLength(rawLength) + rawLength + signature + MAX_RESULT_SIZE_IN_TX);
}
