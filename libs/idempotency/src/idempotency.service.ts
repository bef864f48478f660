import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { ApiException, ErrorCode } from '@app/common';
import { canonicalJson } from './canonical-json';
import { PreparedStatements } from '@app/database';
import { IdempotentInsert, keyedInsertSql, plainInsertSql } from './idempotent-insert';
import {
  IdempotencyKeysRepository,
  keyRowValues,
  StoredIdempotencyRecord,
} from './idempotency-keys.repository';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  IdempotentRequest,
  IdempotentResult,
  StoredResponse,
} from './idempotency.types';

const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;

/**
 * Runs a creating request at most once per (merchant, Idempotency-Key, endpoint).
 *
 * The work and the stored response commit in one transaction, so either both exist or neither does.
 * A concurrent request with the same key fails fast with 409 `idempotency_in_progress` (retryable);
 * a later one gets the stored response, or 409 `idempotency_key_reused` if its body differs.
 * Errors are not stored: nothing was created, so a retry simply runs again.
 */
@Injectable()
export class IdempotencyService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keys: IdempotencyKeysRepository,
    private readonly statements: PreparedStatements,
  ) {}

  async execute<T>(
    request: IdempotentRequest,
    work: (manager: EntityManager) => Promise<StoredResponse<T>>,
  ): Promise<IdempotentResult<T>> {
    if (request.key === undefined) {
      const response = await this.dataSource.transaction(work);
      return { response, replayed: false };
    }
    assertValidKey(request.key);
    const scope = { merchantId: request.merchantId, key: request.key, endpoint: request.endpoint };
    const requestHash = createHash('sha256')
      .update(canonicalJson(request.fingerprint))
      .digest('hex');

    return this.dataSource.transaction(async (manager) => {
      const { locked, stored } = await this.keys.lockAndFind(manager, scope);
      if (!locked) throw inProgress();
      if (stored) {
        return replayOrConflict<T>(stored, requestHash);
      }
      const response = await work(manager);
      if (!(await this.keys.insert(manager, scope, requestHash, response))) throw inProgress();
      return { response, replayed: false };
    });
  }

  /**
   * Fast path for work that is one INSERT whose response is known before it runs (a new session):
   * the stored key and the resource are written by one prepared statement, no transaction. A
   * concurrent request with the same key waits for that statement and then gets the stored
   * response, so the in-progress 409 cannot happen here.
   */
  async executeInsert<T>(
    request: IdempotentRequest,
    response: StoredResponse<T>,
    insert: IdempotentInsert,
  ): Promise<IdempotentResult<T>> {
    if (request.key === undefined) {
      await this.statements.query(plainInsertSql(insert), insert.values);
      return { response, replayed: false };
    }
    assertValidKey(request.key);
    const scope = { merchantId: request.merchantId, key: request.key, endpoint: request.endpoint };
    const requestHash = hashOf(request.fingerprint);
    // Twice at most: the second run follows the removal of an expired key that blocked the first.
    for (let attempt = 0; attempt < 2; attempt++) {
      const created = await this.statements.query(keyedInsertSql(insert), [
        ...keyRowValues(scope, requestHash, response),
        ...insert.values,
      ]);
      if (created.length) return { response, replayed: false };
      const stored = await this.keys.findLive(this.dataSource.manager, scope);
      if (stored) return replayOrConflict<T>(stored, requestHash);
      await this.keys.deleteExpiredKey(scope);
    }
    throw inProgress();
  }

  /**
   * The stored result of an earlier request with this key, if there is one (a conflict if its body
   * differed). For work that failed before it could run: a replay must return what the first
   * request got, even when what it depended on (exchange rates, a sub-merchant) has changed since.
   */
  async storedResult<T>(request: IdempotentRequest): Promise<IdempotentResult<T> | undefined> {
    if (request.key === undefined) return undefined;
    assertValidKey(request.key);
    const scope = { merchantId: request.merchantId, key: request.key, endpoint: request.endpoint };
    const stored = await this.keys.findLive(this.dataSource.manager, scope);
    return stored ? replayOrConflict<T>(stored, hashOf(request.fingerprint)) : undefined;
  }

  /**
   * Deletes expired keys (past their 24 hours they replay nothing: a new request with the key runs
   * again) in batches, until none is left or `deadline` (a Date.now() value) has passed.
   */
  async purgeExpired(batchSize = 1000, deadline = Number.POSITIVE_INFINITY): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.keys.deleteExpired(batchSize);
      total += deleted;
      if (deleted < batchSize || Date.now() >= deadline) return total;
    }
  }
}

function hashOf(fingerprint: unknown): string {
  return createHash('sha256').update(canonicalJson(fingerprint)).digest('hex');
}

function replayOrConflict<T>(
  stored: StoredIdempotencyRecord,
  requestHash: string,
): IdempotentResult<T> {
  if (stored.request_hash !== requestHash) {
    throw new ApiException(
      ErrorCode.IdempotencyKeyReused,
      'This Idempotency-Key was already used with a different request. Use a new key for a new request.',
      IDEMPOTENCY_KEY_HEADER,
    );
  }
  return {
    response: { status: stored.response_status, body: stored.response_body as T },
    replayed: true,
  };
}

function assertValidKey(key: string): void {
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX_LENGTH || !PRINTABLE_ASCII.test(key)) {
    throw ApiException.invalid(
      IDEMPOTENCY_KEY_HEADER,
      `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters; a UUID v4 is recommended.`,
    );
  }
}

function inProgress(): ApiException {
  return new ApiException(
    ErrorCode.IdempotencyInProgress,
    'A request with this Idempotency-Key is still being processed. Retry in a moment.',
    IDEMPOTENCY_KEY_HEADER,
    { 'Retry-After': '1' },
  );
}
