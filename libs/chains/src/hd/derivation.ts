import { createHash } from 'node:crypto';
import { BIP32Factory, BIP32Interface } from 'bip32';
import { getAddress, keccak256 } from 'ethers';
import * as secp256k1 from 'tiny-secp256k1';
import { TronWeb } from 'tronweb';
import { ChainFamily } from '../networks/network.types';

/** BIP-44 account paths whose extended public keys the service is configured with. */
export const EVM_ACCOUNT_PATH = "m/44'/60'/0'";
export const TRON_ACCOUNT_PATH = "m/44'/195'/0'";

/** Pay addresses are children of the external chain (…/0/index), never of the change chain. */
const EXTERNAL_CHAIN = 0;
const ACCOUNT_DEPTH = 3;
const FIRST_HARDENED_INDEX = 0x80000000;
const TRON_ADDRESS_PREFIX = '41';

// bip32 over tiny-secp256k1 (libsecp256k1 compiled to WebAssembly): a child public key costs about
// a fifth of ethers' pure-JS HDNodeVoidWallet, and the worker derives tens of thousands of them to
// keep the pay-address pool full. The BIP-44 vectors in derivation.spec.ts pin the results.
export const bip32 = BIP32Factory(secp256k1);

// Parsing an xpub and deriving the external chain costs as much as a whole address, so each
// xpub is parsed once. Only a handful of xpubs exist per process; the bound is a safety net.
const MAX_CACHED_ACCOUNTS = 16;
const externalChainNodes = new Map<string, BIP32Interface>();

function externalChainNode(xpub: string): BIP32Interface {
  const cached = externalChainNodes.get(xpub);
  if (cached) return cached;
  const account = parseAccountKey(xpub);
  const node = account.derive(EXTERNAL_CHAIN);
  if (externalChainNodes.size >= MAX_CACHED_ACCOUNTS) externalChainNodes.clear();
  externalChainNodes.set(xpub, node);
  return node;
}

// Error messages never repeat the key: a private key pasted by mistake must not reach a log.
function parseAccountKey(xpub: string): BIP32Interface {
  let node: BIP32Interface;
  try {
    node = bip32.fromBase58(xpub);
  } catch {
    throw new Error('Not a valid BIP-32 extended public key (xpub...).');
  }
  if (!node.isNeutered()) {
    throw new Error('Expected an extended public key (xpub...), got a private one.');
  }
  if (node.depth !== ACCOUNT_DEPTH) {
    throw new Error(
      `Expected an account-level extended public key (depth ${ACCOUNT_DEPTH}, e.g. ${EVM_ACCOUNT_PATH}), got depth ${node.depth}.`,
    );
  }
  return node;
}

/** The 20-byte Ethereum address (lowercase hex, no 0x) of the child at `index`. */
function childAddressHex(xpub: string, index: number): string {
  if (!Number.isSafeInteger(index) || index < 0 || index >= FIRST_HARDENED_INDEX) {
    throw new RangeError(`Address index must be a whole number from 0 to 2^31 - 1, got ${index}.`);
  }
  const compressed = externalChainNode(xpub).derive(index).publicKey;
  const uncompressed = secp256k1.pointCompress(compressed, false);
  // keccak256 of the 64-byte X‖Y (without the 0x04 prefix); the address is its last 20 bytes.
  return keccak256(uncompressed.subarray(1)).slice(-40);
}

/** Throws unless the key is an account-level xpub; call at startup to fail fast. */
export function assertAccountKey(xpub: string): void {
  externalChainNode(xpub);
}

/** Checksummed 0x address at external chain index `index` of an m/44'/60'/0' xpub. */
export function deriveEvmAddress(xpub: string, index: number): string {
  return getAddress(`0x${childAddressHex(xpub, index)}`);
}

/** Base58 T-address at external chain index `index` of an m/44'/195'/0' xpub. */
export function deriveTronAddress(xpub: string, index: number): string {
  // TRON hashes the public key exactly like Ethereum and prefixes the 20 bytes with 0x41.
  return TronWeb.address.fromHex(TRON_ADDRESS_PREFIX + childAddressHex(xpub, index));
}

export function deriveAddress(family: ChainFamily, xpub: string, index: number): string {
  return family === 'TRON' ? deriveTronAddress(xpub, index) : deriveEvmAddress(xpub, index);
}

/** Identifies a key in the database and logs without revealing it. */
export function keyFingerprint(xpub: string): string {
  return createHash('sha256').update(xpub).digest('hex').slice(0, 16);
}
