import { EntityManager } from 'typeorm';
import { FAILURES_BEFORE_FROZEN } from './sweep-outcomes';

/** A one-address sweep (TRON, EVM gas top-up) as its address's outcome needs it. */
export interface SingleSweep {
  id: string;
  network: string;
  currency: string;
  address: string;
  created_at: Date;
}

/** EVM addresses compare without case; TRON's base58 ones exactly. */
const SAME_ADDRESS = `CASE WHEN $3 LIKE '0x%' THEN lower(address) = lower($3) ELSE address = $3 END`;

/**
 * After a one-address sweep's transfer was mined in `block`, in the transaction that books it:
 *
 * - The address's pending_block rises past that block, as for 7702 batches: a balance read of an
 *   earlier state (a lagging backend) still shows the tokens just swept and must not plan (and,
 *   on TRON, lend energy for) a sweep of an emptied address.
 * - Swept: its failures start again from zero.
 * - Refused by the token: the failure counts toward freezing only with evidence that the token
 *   itself works, the freezing rule of 7702 batches (sweep-safety.ts failureCounts) for sweeps of
 *   one address: another address of the token swept since this sweep started. A paused token
 *   refuses every address and freezes none.
 */
export async function settleSweptAddress(
  manager: EntityManager,
  sweep: SingleSweep,
  outcome: 'swept' | 'refused' | 'other',
  block: number,
): Promise<void> {
  await manager.query(
    `UPDATE sweep_addresses
        SET pending_block = CASE WHEN pending_since IS NOT NULL
                                 THEN GREATEST(pending_block, $4) ELSE pending_block END,
            failures = CASE WHEN $5 THEN 0 ELSE failures END,
            updated_at = now()
      WHERE network = $1 AND currency = $2 AND ${SAME_ADDRESS}`,
    [sweep.network, sweep.currency, sweep.address, block, outcome === 'swept'],
  );
  if (outcome !== 'refused') return;
  await manager.query(
    `UPDATE sweep_addresses
        SET failures = failures + 1, updated_at = now(),
            frozen_at = CASE WHEN failures + 1 >= $4 THEN now() ELSE frozen_at END
      WHERE network = $1 AND currency = $2 AND ${SAME_ADDRESS}
        AND EXISTS (
          SELECT 1 FROM sweeps s JOIN sweep_items i ON i.sweep_id = s.id
           WHERE s.network = $1 AND s.currency = $2 AND i.status = 'Swept'
             AND s.id <> $5 AND lower(i.address) <> lower($3) AND s.updated_at >= $6)`,
    [
      sweep.network,
      sweep.currency,
      sweep.address,
      FAILURES_BEFORE_FROZEN,
      sweep.id,
      sweep.created_at,
    ],
  );
}
