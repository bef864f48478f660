import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { queryPrepared } from '@app/database';
import { IDEMPOTENCY_RETENTION_HOURS, StoredResponse } from './idempotency.types';

export interface StoredIdempotencyRecord {
  request_hash: string;
  response_status: number;
  response_body: unknown;
}

/** Parameters $1-$7 of every statement that stores a key row, in this order. */
export function keyRowValues(
  scope: Scope,
  requestHash: string,
  response: StoredResponse<unknown>,
): unknown[] {
  return [
    scope.merchantId,
    scope.key,
    scope.endpoint,
    requestHash,
    response.status,
    JSON.stringify(response.body),
    IDEMPOTENCY_RETENTION_HOURS,
  ];
}

export interface Scope {
  merchantId: string;
  key: string;
  endpoint: string;
}

@Injectable()
export class IdempotencyKeysRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Claims the key for this transaction without waiting (false: a request with the same key is
   * running right now; the lock ends with the transaction) and reads any live stored response, in
   * one round trip. The read can miss a row committed in the instant before the lock was granted;
   * then the primary key refuses our insert and the client gets a retryable 409, never a duplicate.
   */
  async lockAndFind(
    manager: EntityManager,
    scope: Scope,
  ): Promise<{ locked: boolean; stored: StoredIdempotencyRecord | null }> {
    // Prepared, as insert: both run on every creating request, inside its transaction.
    const rows = await queryPrepared<{ locked: boolean; stored: StoredIdempotencyRecord | null }>(
      manager,
      `SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked,
              (SELECT json_build_object('request_hash', request_hash, 'response_status', response_status,
                                        'response_body', response_body)
                 FROM idempotency_keys
                WHERE merchant_id = $2 AND idempotency_key = $3 AND endpoint = $4 AND expires_at > now())
              AS stored`,
      [
        `${scope.merchantId}\n${scope.endpoint}\n${scope.key}`,
        scope.merchantId,
        scope.key,
        scope.endpoint,
      ],
    );
    return rows[0];
  }

  /**
   * Stores the response in the caller's transaction. The primary key is the final guard: a live row
   * for the same scope makes this return false and the caller roll back. An expired row (not yet
   * purged) is replaced.
   */
  async insert(
    manager: EntityManager,
    scope: Scope,
    requestHash: string,
    response: StoredResponse<unknown>,
  ): Promise<boolean> {
    const rows = await queryPrepared(
      manager,
      `INSERT INTO idempotency_keys
         (merchant_id, idempotency_key, endpoint, request_hash, response_status, response_body, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(hours => $7))
       ON CONFLICT (merchant_id, idempotency_key, endpoint) DO UPDATE
         SET request_hash = EXCLUDED.request_hash, response_status = EXCLUDED.response_status,
             response_body = EXCLUDED.response_body, created_at = now(), expires_at = EXCLUDED.expires_at
         WHERE idempotency_keys.expires_at <= now()
       RETURNING 1`,
      keyRowValues(scope, requestHash, response),
    );
    return rows.length === 1;
  }

  /** The stored response of a live key, read outside any transaction. */
  async findLive(manager: EntityManager, scope: Scope): Promise<StoredIdempotencyRecord | null> {
    const rows: StoredIdempotencyRecord[] = await manager.query(
      `SELECT request_hash, response_status, response_body FROM idempotency_keys
        WHERE merchant_id = $1 AND idempotency_key = $2 AND endpoint = $3 AND expires_at > now()`,
      [scope.merchantId, scope.key, scope.endpoint],
    );
    return rows[0] ?? null;
  }

  /** Removes this scope's key if it has expired (the purge job may not have run yet). */
  async deleteExpiredKey(scope: Scope): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM idempotency_keys
        WHERE merchant_id = $1 AND idempotency_key = $2 AND endpoint = $3 AND expires_at <= now()`,
      [scope.merchantId, scope.key, scope.endpoint],
    );
  }

  /** Deletes up to `limit` expired keys; returns how many went. */
  async deleteExpired(limit: number): Promise<number> {
    // Counted in a CTE: TypeORM returns [rows, count] for a bare DELETE ... RETURNING.
    const rows: Array<{ deleted: string }> = await this.dataSource.query(
      `WITH deleted AS (
         DELETE FROM idempotency_keys WHERE ctid IN (
           SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT $1)
         RETURNING 1)
       SELECT count(*) AS deleted FROM deleted`,
      [limit],
    );
    return Number(rows[0].deleted);
  }
}
