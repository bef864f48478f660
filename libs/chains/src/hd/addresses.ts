import { getAddress, isAddress } from 'ethers';
import { TronWeb } from 'tronweb';
import { ChainFamily } from '../networks/network.types';

// ethers also accepts ICAP ("XE…") addresses and tronweb also accepts 41-prefixed hex; the
// API takes only the forms payers and explorers use.
const EVM_ADDRESS_FORMAT = /^0x[0-9a-fA-F]{40}$/;
const TRON_ADDRESS_FORMAT = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;

export function isValidAddress(family: ChainFamily, address: unknown): address is string {
  if (typeof address !== 'string') return false;
  if (family === 'TRON') return TRON_ADDRESS_FORMAT.test(address) && TronWeb.isAddress(address);
  // A mixed-case EVM address must carry a correct EIP-55 checksum.
  return EVM_ADDRESS_FORMAT.test(address) && isAddress(address);
}

/** The canonical form to store and compare: checksummed for EVM, base58 for TRON. */
export function normalizeAddress(family: ChainFamily, address: string): string {
  if (!isValidAddress(family, address)) {
    throw new Error(`Not a valid ${family} address: ${JSON.stringify(address)}.`);
  }
  return family === 'EVM' ? getAddress(address) : address;
}
