/**
 * What `decimals()` answered, as a number, or undefined when it is no uint8 (ERC-20 and TRC-20
 * declare it uint8). The ABI word is read whole, never masked to 8 bits, so a contract answering
 * 256 cannot pass as 0.
 */
export function uint8Decimals(word: bigint): number | undefined {
  return word >= 0n && word <= 255n ? Number(word) : undefined;
}
