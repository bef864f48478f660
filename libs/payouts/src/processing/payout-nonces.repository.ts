import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';

/**
 * This worker's key is not the network's registered hot wallet (another worker started with
 * another key file registered its own): it must not sign from it.
 */
export class UnregisteredHotWalletError extends Error {
  constructor(
    readonly network: string,
    readonly address: string,
  ) {
    super(`Hot wallet ${address} of ${network} is not the registered one.`);
  }
}

/** SQL of hot wallet nonces: the wallet row's lock, and nonces handed out to payouts. */
@Injectable()
export class PayoutNoncesRepository {
  private readonly logger = new Logger(PayoutNoncesRepository.name);

  /** Locks the network's hot wallet row: nonces are handed out one signer at a time. */
  async lockWalletNonce(
    manager: EntityManager,
    network: string,
    address: string,
  ): Promise<number | null> {
    const rows: Array<{ next_nonce: string | null }> = await manager.query(
      `SELECT next_nonce FROM hot_wallets WHERE network = $1 AND address = $2 FOR UPDATE`,
      [network, address],
    );
    if (!rows.length) throw new UnregisteredHotWalletError(network, address);
    return rows[0].next_nonce === null ? null : Number(rows[0].next_nonce);
  }

  /**
   * Gives the first free nonce from `nonce` on to the payout and moves the wallet's next nonce
   * past it; returns the nonce given. The caller holds the wallet row's lock. A nonce held by a
   * payout still in flight is never taken. One held by a finished payout can only come back from
   * a chain that no longer has it (a reset devnet) or from a node that lags: it is taken over,
   * which is safe, as a nonce can be mined once only.
   */
  async assignNonce(
    manager: EntityManager,
    network: string,
    address: string,
    nonce: number,
    payoutId: string,
  ): Promise<number> {
    for (let candidate = nonce; ; candidate++) {
      const [assigned]: Array<{ previous: string | null }> = await manager.query(
        `WITH previous AS (
           SELECT payout_id FROM payout_nonces WHERE network = $1 AND wallet_address = $2 AND nonce = $3)
         INSERT INTO payout_nonces (network, wallet_address, nonce, payout_id) VALUES ($1, $2, $3, $4)
         ON CONFLICT (network, wallet_address, nonce) DO UPDATE
           SET payout_id = EXCLUDED.payout_id, created_at = now()
           WHERE NOT EXISTS (SELECT 1 FROM payouts p
                              WHERE p.id = payout_nonces.payout_id AND p.status = 'Processing')
         RETURNING (SELECT payout_id FROM previous) AS previous`,
        [network, address, candidate, payoutId],
      );
      if (!assigned) continue;
      if (assigned.previous) {
        this.logger.warn(
          { network, nonce: candidate, payoutId, previousPayoutId: assigned.previous },
          'Nonce of a finished payout handed out again: the chain was reset or the node lags',
        );
      }
      await manager.query(
        `UPDATE hot_wallets SET next_nonce = $3, updated_at = now() WHERE network = $1 AND address = $2`,
        [network, address, candidate + 1],
      );
      return candidate;
    }
  }

  /**
   * `payoutIds.length` nonces for these payouts, in that order, from `from` on: consecutive but
   * for nonces still held by payouts in flight (skipped, as `assignNonce` skips them). One
   * statement for the lot; moves the wallet's next nonce past the last. The caller holds the
   * wallet row's lock, under which no other nonce is handed out, so every nonce planned is free
   * when inserted; if one were not, the whole claim rolls back (nothing signed is kept).
   */
  async assignNonces(
    manager: EntityManager,
    network: string,
    address: string,
    from: number,
    payoutIds: string[],
  ): Promise<number[]> {
    const held: Array<{ nonce: string }> = await manager.query(
      `SELECT n.nonce FROM payout_nonces n JOIN payouts p ON p.id = n.payout_id
        WHERE n.network = $1 AND n.wallet_address = $2 AND n.nonce >= $3 AND p.status = 'Processing'`,
      [network, address, from],
    );
    const taken = new Set(held.map((row) => Number(row.nonce)));
    const nonces: number[] = [];
    for (let candidate = from; nonces.length < payoutIds.length; candidate++) {
      if (!taken.has(candidate)) nonces.push(candidate);
    }
    const assigned: Array<{ nonce: string; previous: string | null }> = await manager.query(
      `WITH wanted AS (
         SELECT * FROM unnest($3::bigint[], $4::text[]) AS w(nonce, payout_id)),
       previous AS (
         SELECT n.nonce, n.payout_id FROM payout_nonces n JOIN wanted w ON w.nonce = n.nonce
          WHERE n.network = $1 AND n.wallet_address = $2)
       INSERT INTO payout_nonces (network, wallet_address, nonce, payout_id)
       SELECT $1, $2, nonce, payout_id FROM wanted
       ON CONFLICT (network, wallet_address, nonce) DO UPDATE
         SET payout_id = EXCLUDED.payout_id, created_at = now()
         WHERE NOT EXISTS (SELECT 1 FROM payouts p
                            WHERE p.id = payout_nonces.payout_id AND p.status = 'Processing')
       RETURNING nonce, (SELECT payout_id FROM previous WHERE previous.nonce = payout_nonces.nonce) AS previous`,
      [network, address, nonces, payoutIds],
    );
    if (assigned.length !== nonces.length) {
      throw new Error(
        `Nonces ${nonces.join(', ')} of ${network} ${address}: ${nonces.length - assigned.length} held by payouts in flight`,
      );
    }
    for (const row of assigned) {
      if (!row.previous) continue;
      this.logger.warn(
        { network, nonce: Number(row.nonce), previousPayoutId: row.previous },
        'Nonce of a finished payout handed out again: the chain was reset or the node lags',
      );
    }
    await manager.query(
      `UPDATE hot_wallets SET next_nonce = $3, updated_at = now() WHERE network = $1 AND address = $2`,
      [network, address, nonces[nonces.length - 1] + 1],
    );
    return nonces;
  }
}
