import type { DataSource } from 'typeorm';

/**
 * Which transaction used a wallet's nonce, as first proven in its block: the wallet's own
 * transaction, or the type-4 transaction that carried an EIP-7702 authorization the wallet signed
 * with that nonce and that the counts at the block and its parent prove applied.
 */
export interface NonceProof {
  /** Lowercase 0x address. */
  address: string;
  nonce: number;
  blockNumber: number;
  /** Lowercase: the proof holds while the block at `blockNumber` has this hash. */
  blockHash: string;
  /** The consuming transaction; for an authorization, the type-4 transaction carrying it. */
  txHash: string;
  byAuthorization: boolean;
}

/**
 * Where proofs outlive the process. A proof waits for its confirmations (128 blocks on Polygon);
 * a worker restarted meanwhile, on a node that has pruned that block's state, could not prove an
 * authorization again (the counts at the block are gone) and its payout would wait for ever.
 */
export interface NonceProofStore {
  find(network: string, address: string, nonce: number): Promise<NonceProof | null>;
  /** The newest proof of the nonce replaces an older one (another block after a reorg). */
  save(network: string, proof: NonceProof): Promise<void>;
}

/**
 * Proofs found by this process, by `owner:nonce`, so the store is read once per nonce. Bounded: a
 * worker runs for months and proves nonces all along; past `capacity` the least recently set goes
 * (a later lookup of it reads the store, which keeps every proof).
 */
export class NonceProofHints {
  private readonly proofs = new Map<string, NonceProof>();

  constructor(private readonly capacity = 10_000) {}

  get size(): number {
    return this.proofs.size;
  }

  get(key: string): NonceProof | undefined {
    return this.proofs.get(key);
  }

  set(key: string, proof: NonceProof): void {
    // Deleted first, so a proof set again counts as the newest (a Map iterates in insertion order).
    this.proofs.delete(key);
    this.proofs.set(key, proof);
    if (this.proofs.size > this.capacity) {
      this.proofs.delete(this.proofs.keys().next().value as string);
    }
  }
}

/** NonceProofStore in PostgreSQL, table nonce_proofs (migration 1795836459785). */
export class PostgresNonceProofs implements NonceProofStore {
  constructor(private readonly dataSource: DataSource) {}

  async find(network: string, address: string, nonce: number): Promise<NonceProof | null> {
    const [row]: Array<{
      block_number: string;
      block_hash: string;
      tx_hash: string;
      by_authorization: boolean;
    }> = await this.dataSource.query(
      `SELECT block_number, block_hash, tx_hash, by_authorization FROM nonce_proofs
        WHERE network = $1 AND address = $2 AND nonce = $3`,
      [network, address, nonce],
    );
    if (!row) return null;
    return {
      address,
      nonce,
      blockNumber: Number(row.block_number),
      blockHash: row.block_hash,
      txHash: row.tx_hash,
      byAuthorization: row.by_authorization,
    };
  }

  async save(network: string, proof: NonceProof): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO nonce_proofs
         (network, address, nonce, block_number, block_hash, tx_hash, by_authorization)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (network, address, nonce) DO UPDATE
         SET block_number = EXCLUDED.block_number, block_hash = EXCLUDED.block_hash,
             tx_hash = EXCLUDED.tx_hash, by_authorization = EXCLUDED.by_authorization,
             proven_at = now()`,
      [
        network,
        proof.address,
        proof.nonce,
        proof.blockNumber,
        proof.blockHash,
        proof.txHash,
        proof.byAuthorization,
      ],
    );
  }
}
