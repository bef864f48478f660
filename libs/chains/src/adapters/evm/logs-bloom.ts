import { getBytes, keccak256 } from 'ethers';

const BLOOM_FORMAT = /^0x[0-9a-fA-F]{512}$/;

/**
 * Whether a block's logsBloom (2048 bits, from its header) may hold every one of `items` (log
 * addresses and topics, as 0x hex). False is a proof the block has no such log: the bloom is part
 * of the header, so whoever could read the block could read this. True may be a false positive.
 * A malformed bloom proves nothing: true.
 */
export function bloomMayContain(bloom: string, items: string[]): boolean {
  if (!BLOOM_FORMAT.test(bloom)) return true;
  const bits = getBytes(bloom);
  return items.every((item) => {
    // Yellow paper M3:2048: three 11-bit indexes from the first six bytes of the item's hash.
    const hash = getBytes(keccak256(getBytes(item)));
    for (let pair = 0; pair < 6; pair += 2) {
      const bit = ((hash[pair] << 8) | hash[pair + 1]) & 2047;
      if ((bits[255 - (bit >> 3)] & (1 << (bit & 7))) === 0) return false;
    }
    return true;
  });
}
