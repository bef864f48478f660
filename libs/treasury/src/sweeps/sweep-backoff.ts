import { EntityManager } from 'typeorm';

/** EVM addresses compare without case; TRON's base58 ones exactly. */
const IN_LIST = `(address = ANY($3) OR (address LIKE '0x%' AND lower(address) = ANY($4)))`;

/**
 * In the transaction that ends a sweep on its chain's outcome: the addresses it swept start their
 * backoff again from zero; each one it did not (the token refused it, its authorization did not
 * apply, the transaction reverted, its transfer ran out of energy) counts one more sweep in a row
 * without success, stamped now. The planner leaves such an address alone for
 * retryBackoffSeconds x 2^(n-1) after the n-th (sweep-planner.repository.ts), so a lone address
 * that keeps refusing no longer costs a transaction every pass. A sweep that ends because its
 * nonce went to another transaction (abandoned, or cancelled by the operator) says nothing about
 * its addresses and records nothing.
 */
export async function recordSweepOutcome(
  manager: EntityManager,
  sweep: { network: string; currency: string },
  swept: string[],
  unswept: string[],
): Promise<void> {
  const lower = (addresses: string[]) => addresses.map((address) => address.toLowerCase());
  if (swept.length) {
    await manager.query(
      `UPDATE sweep_addresses SET unswept_in_row = 0, unswept_at = NULL, updated_at = now()
        WHERE network = $1 AND currency = $2 AND ${IN_LIST} AND unswept_in_row > 0`,
      [sweep.network, sweep.currency, swept, lower(swept)],
    );
  }
  if (unswept.length) {
    await manager.query(
      `UPDATE sweep_addresses
          SET unswept_in_row = unswept_in_row + 1, unswept_at = now(), updated_at = now()
        WHERE network = $1 AND currency = $2 AND ${IN_LIST}`,
      [sweep.network, sweep.currency, unswept, lower(unswept)],
    );
  }
}
