/** One solidity-API read of candidates' balances, between two reads of the same URL's solid head. */
export interface SolidBalanceRead {
  solidBefore: number;
  solidAfter: number;
  balances: bigint[];
}

/**
 * Which candidates a TRON balance read proves empty, and through which block. Only a zero read
 * from the solidity API counts (a full node's state may be of a fork, or of a backend that lags
 * behind the transfer), only for a candidate whose newest known transfer is in a solidified block
 * at or below the solid head read before (so the read's state holds it), and only when the head
 * read after is not older (else another backend answered some reads: nothing is proven). The
 * block is the solid head read before: every state the balances came from is at or past it.
 */
export function provenEmpty<T extends { pendingBlock: number }>(
  candidates: T[],
  read: SolidBalanceRead,
): { empty: T[]; block: number } {
  if (read.solidAfter < read.solidBefore || read.balances.length !== candidates.length) {
    return { empty: [], block: read.solidBefore };
  }
  const empty = candidates.filter(
    (candidate, index) => read.balances[index] === 0n && candidate.pendingBlock <= read.solidBefore,
  );
  return { empty, block: read.solidBefore };
}
