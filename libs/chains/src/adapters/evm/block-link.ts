import { BlockLink } from '../chain-adapter';

const HASH_FORMAT = /^0x[0-9a-fA-F]{64}$/;
const BLOOM_FORMAT = /^0x[0-9a-fA-F]{512}$/;

/** Why a block answer cannot be used; the adapter turns it into a permanent ChainError. */
export class InvalidBlockError extends Error {}

/**
 * The BlockLink of an eth_getBlockByNumber answer (JSON-RPC, not ethers' Block: that one drops
 * the header's logsBloom, which proves a block holds no transfer of a token). Null stays null:
 * the node does not have the block.
 */
export function parseBlockLink(raw: unknown, blockNumber: number): BlockLink | null {
  if (raw === null) return null;
  if (typeof raw !== 'object') throw new InvalidBlockError('not a block');
  const block = raw as Record<string, unknown>;
  if (typeof block.number !== 'string' || Number(block.number) !== blockNumber) {
    throw new InvalidBlockError('the node returned another block');
  }
  const { hash, parentHash, logsBloom } = block;
  if (typeof hash !== 'string' || !HASH_FORMAT.test(hash)) {
    throw new InvalidBlockError('block without a valid hash');
  }
  if (typeof parentHash !== 'string' || !HASH_FORMAT.test(parentHash)) {
    throw new InvalidBlockError('block without a valid parent hash');
  }
  return {
    hash: hash.toLowerCase(),
    parentHash: parentHash.toLowerCase(),
    // A node that leaves it out (or garbles it) only loses the shortcut it gives.
    ...(typeof logsBloom === 'string' && BLOOM_FORMAT.test(logsBloom) ? { logsBloom } : {}),
  };
}
