import { Inject, Injectable, Logger, OnModuleDestroy, Optional } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LRUCache } from 'lru-cache';
import { timingSafeEqual } from 'node:crypto';
import { EntityManager, Repository } from 'typeorm';
import { APP_CONFIG, AppConfig, ApiException, ErrorCode, ID_PREFIX, newId } from '@app/common';
import { ApiKeyEntity } from './api-key.entity';
import { generateApiKey, hashApiKey, keyHint } from './api-key-format';
import { ApiKeySummary, summarizeApiKey } from './api-key-summary';
import { normalizeScopes, permissionsOfKey } from './api-key-scopes';
import { AuthenticatedMerchant } from './authenticated-merchant';
import { ApiScope } from './permissions';

/**
 * PostgreSQL channel announcing that a key was revoked or rolled (payload: its id). NOTIFY is sent
 * in the transaction of the change, so every API process's listener (ApiKeyRevocations) evicts
 * the key from its cache when, and only when, the change committed.
 */
export const API_KEY_CHANGED_CHANNEL = 'api_key_changed';

// Every request authenticates; caching the hash lookup briefly saves a query per request.
// Revocation reaches every process through NOTIFY at once; this TTL only bounds how long a
// process whose LISTEN connection is down keeps accepting a revoked key. One second costs about
// one lookup per second per busy key and process, which the primary-key-sized index answers.
export const API_KEY_CACHE_TTL_MS = 1_000;
/** Overrides API_KEY_CACHE_TTL_MS: for tests that must not depend on how fast they run. */
export const API_KEY_CACHE_TTL = Symbol('API_KEY_CACHE_TTL');
// Least recently used keys leave first, so the keys in use stay cached.
const KNOWN_KEYS_MAX = 10_000;
// Unknown keys are remembered apart (a client retrying a revoked key costs no query), so spraying
// random keys only ever evicts other unknown keys, never a merchant's.
const UNKNOWN_KEYS_MAX = 1_000;
// last_used_at is for people ("used 3 minutes ago"): one write per key and minute is plenty.
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/** How long a rolled key keeps working: the choices of the console's "Roll key" dialog. */
export const ROLL_EXPIRIES = {
  now: '0 seconds',
  '1h': '1 hour',
  '24h': '24 hours',
  '7d': '7 days',
} as const;
export type RollExpiry = keyof typeof ROLL_EXPIRIES;

export interface NewApiKey {
  merchantId: string;
  /** Null or absent: unnamed (keys issued by the CLI). */
  name?: string | null;
  /** Null or absent: a full secret key; otherwise a restricted key with these scopes. */
  scopes?: readonly ApiScope[] | null;
  createdByUserId?: string | null;
  /** The key this one replaces (set by roll). */
  rolledFromKeyId?: string | null;
}

/** A new key, with the plaintext: the one answer that ever carries it. */
export interface CreatedApiKey {
  id: string;
  merchant_id: string;
  name: string | null;
  scopes: ApiScope[] | null;
  key_hint: string;
  api_key: string;
  livemode: boolean;
  created_at: string;
  expires_at: null;
}

export interface RolledApiKey {
  /** The replacement, with its plaintext. */
  key: CreatedApiKey;
  /** The rolled key, with the time it stops working. */
  previous: ApiKeySummary;
}

interface CachedKey {
  merchant: AuthenticatedMerchant;
  /** A rolled key stops at this time even while cached (ms since epoch). */
  expiresAtMs: number | null;
}

@Injectable()
export class ApiKeysService implements OnModuleDestroy {
  private readonly logger = new Logger(ApiKeysService.name);
  private readonly knownKeys: LRUCache<string, CachedKey>;
  private readonly unknownKeys: LRUCache<string, true>;
  /** When this process last wrote each key's last_used_at (ms). */
  private readonly lastUseWrites = new LRUCache<string, number>({ max: KNOWN_KEYS_MAX });
  private readonly pendingUseWrites = new Set<Promise<unknown>>();

  constructor(
    @InjectRepository(ApiKeyEntity) private readonly apiKeys: Repository<ApiKeyEntity>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() @Inject(API_KEY_CACHE_TTL) cacheTtlMs: number = API_KEY_CACHE_TTL_MS,
  ) {
    this.knownKeys = new LRUCache({ max: KNOWN_KEYS_MAX, ttl: cacheTtlMs });
    this.unknownKeys = new LRUCache({ max: UNKNOWN_KEYS_MAX, ttl: cacheTtlMs });
  }

  /**
   * Issues a key for this deployment's environment. The plaintext is returned once, never stored.
   * `create(merchantId)` issues an unnamed secret key (the CLI's call). With `manager`, the key is
   * written in the caller's transaction (which audits it).
   */
  async create(input: string | NewApiKey, manager?: EntityManager): Promise<CreatedApiKey> {
    const key: NewApiKey = typeof input === 'string' ? { merchantId: input } : input;
    const scopes = key.scopes ? normalizeScopes(key.scopes) : null;
    const apiKey = generateApiKey(this.config.livemode);
    const repository = manager ? manager.getRepository(ApiKeyEntity) : this.apiKeys;
    const row = await repository.save(
      repository.create({
        id: newId(ID_PREFIX.apiKey),
        merchantId: key.merchantId,
        keyHash: hashApiKey(apiKey),
        keyHint: keyHint(apiKey),
        livemode: this.config.livemode,
        name: key.name ?? null,
        scopes,
        expiresAt: null,
        createdByUserId: key.createdByUserId ?? null,
        rolledFromKeyId: key.rolledFromKeyId ?? null,
        revokedAt: null,
      }),
    );
    return {
      id: row.id,
      merchant_id: key.merchantId,
      name: row.name,
      scopes: row.scopes,
      key_hint: row.keyHint,
      api_key: apiKey,
      livemode: row.livemode,
      created_at: row.createdAt.toISOString(),
      expires_at: null,
    };
  }

  /**
   * Revokes the key (of `merchantId` when given) at once. Returns false when there was no
   * unrevoked key with this id. Every API process forgets it on commit (NOTIFY); with `manager`
   * the caller commits, and should call `forget` afterwards for this process's certainty.
   */
  async revoke(
    apiKeyId: string,
    options: { merchantId?: string } = {},
    manager?: EntityManager,
  ): Promise<boolean> {
    const revoked = await this.inTransaction(manager, async (transaction) => {
      const rows = await updateReturning<{ id: string }>(
        transaction,
        `UPDATE api_keys SET revoked_at = now()
          WHERE id = $1 AND revoked_at IS NULL AND ($2::text IS NULL OR merchant_id = $2)
          RETURNING id`,
        [apiKeyId, options.merchantId ?? null],
      );
      if (rows.length) await this.announceChange(transaction, apiKeyId);
      return rows.length > 0;
    });
    this.forget(apiKeyId);
    return revoked;
  }

  /**
   * Replaces a key: a new one with the same name and scopes, and the old one stops working after
   * `expiresIn` (never later than it already would), in one transaction. 404 for a key of
   * another merchant or none, 409 for a key already revoked or expired.
   */
  async roll(
    input: { apiKeyId: string; merchantId: string; expiresIn: RollExpiry; rolledByUserId?: string },
    manager?: EntityManager,
  ): Promise<RolledApiKey> {
    const rolled = await this.inTransaction(manager, async (transaction) => {
      const old = await transaction.getRepository(ApiKeyEntity).findOne({
        where: { id: input.apiKeyId, merchantId: input.merchantId, livemode: this.config.livemode },
        lock: { mode: 'pessimistic_write' },
      });
      if (!old) throw ApiException.notFound('API key', input.apiKeyId);
      const [{ database_now: databaseNow }]: Array<{ database_now: Date }> =
        await transaction.query(`SELECT now() AS database_now`);
      if (old.revokedAt || (old.expiresAt && old.expiresAt <= databaseNow)) {
        throw new ApiException(
          ErrorCode.InvalidState,
          `The API key '${old.id}' is already ${old.revokedAt ? 'revoked' : 'expired'}; create a new key instead.`,
          'id',
        );
      }
      const [{ expires_at: expiresAt }] = await updateReturning<{ expires_at: Date }>(
        transaction,
        `UPDATE api_keys
            SET expires_at = LEAST(COALESCE(expires_at, 'infinity'), now() + $2::interval)
          WHERE id = $1 RETURNING expires_at`,
        [old.id, ROLL_EXPIRIES[input.expiresIn]],
      );
      const key = await this.create(
        {
          merchantId: old.merchantId,
          name: old.name,
          scopes: old.scopes,
          createdByUserId: input.rolledByUserId ?? null,
          rolledFromKeyId: old.id,
        },
        transaction,
      );
      // Cached copies elsewhere hold the old expiry (none): they re-read it.
      await this.announceChange(transaction, old.id);
      return { key, previous: summarizeApiKey({ ...old, expiresAt }, databaseNow) };
    });
    this.forget(input.apiKeyId);
    return rolled;
  }

  /** The merchant's keys of this environment, newest first, as the API keys page lists them. */
  async list(merchantId: string): Promise<ApiKeySummary[]> {
    const [rows, [{ database_now: now }]] = await Promise.all([
      this.apiKeys.find({
        where: { merchantId, livemode: this.config.livemode },
        order: { createdAt: 'DESC', id: 'DESC' },
      }),
      this.apiKeys.query(`SELECT now() AS database_now`) as Promise<Array<{ database_now: Date }>>,
    ]);
    return rows.map((row) => summarizeApiKey(row, now));
  }

  /** One key of the merchant, or null. */
  async find(merchantId: string, apiKeyId: string): Promise<ApiKeySummary | null> {
    return (await this.list(merchantId)).find((key) => key.id === apiKeyId) ?? null;
  }

  /** Every key of a merchant, oldest first, whatever its state (the CLI's `keys:list`). */
  async listForMerchant(merchantId: string): Promise<ApiKeyEntity[]> {
    return this.apiKeys.find({ where: { merchantId }, order: { createdAt: 'ASC' } });
  }

  /**
   * The merchant an active key of this deployment's environment belongs to, or null. The caller
   * has already checked the shape (and the guard the sk_test_/sk_live_ prefix).
   */
  async authenticate(apiKey: string): Promise<AuthenticatedMerchant | null> {
    const hash = hashApiKey(apiKey);
    const cacheKey = hash.toString('base64');
    let cached = this.knownKeys.get(cacheKey);
    if (!cached) {
      if (this.unknownKeys.has(cacheKey)) return null;
      const found = await this.lookup(hash);
      if (!found) {
        this.unknownKeys.set(cacheKey, true);
        return null;
      }
      cached = found;
      this.knownKeys.set(cacheKey, cached);
    }
    // A rolled key expires at its time even if its entry is younger than the cache's TTL.
    if (cached.expiresAtMs !== null && cached.expiresAtMs <= Date.now()) {
      this.knownKeys.delete(cacheKey);
      return null;
    }
    if (cached.merchant.apiKeyId) this.noteUse(cached.merchant.apiKeyId);
    return cached.merchant;
  }

  /** Drops a key from this process's cache; the next request with it reads the database. */
  forget(apiKeyId: string): void {
    const cached = [...this.knownKeys.entries()].filter(
      ([, entry]) => entry.merchant.apiKeyId === apiKeyId,
    );
    for (const [cacheKey] of cached) this.knownKeys.delete(cacheKey);
  }

  /** Drops every cached key: after notifications may have been missed (a lost LISTEN). */
  forgetAll(): void {
    this.knownKeys.clear();
  }

  /** Whether this process holds the key in its cache (tests of the revocation path). */
  isCached(apiKeyId: string): boolean {
    return [...this.knownKeys.values()].some((entry) => entry.merchant.apiKeyId === apiKeyId);
  }

  async onModuleDestroy(): Promise<void> {
    // The database closes after this: let the last-use writes in flight finish first.
    await Promise.all([...this.pendingUseWrites]);
  }

  private async inTransaction<T>(
    manager: EntityManager | undefined,
    work: (transaction: EntityManager) => Promise<T>,
  ): Promise<T> {
    return manager ? work(manager) : this.apiKeys.manager.transaction(work);
  }

  private async announceChange(manager: EntityManager, apiKeyId: string): Promise<void> {
    await manager.query(`SELECT pg_notify($1, $2)`, [API_KEY_CHANGED_CHANNEL, apiKeyId]);
  }

  /**
   * Records the key's use at most once a minute per process (and, by the WHERE, about once a
   * minute across processes), without the request waiting for it or failing with it.
   */
  private noteUse(apiKeyId: string): void {
    const now = Date.now();
    const lastWrite = this.lastUseWrites.get(apiKeyId);
    if (lastWrite !== undefined && now - lastWrite < LAST_USED_WRITE_INTERVAL_MS) return;
    this.lastUseWrites.set(apiKeyId, now);
    const write = this.apiKeys
      .query(
        `UPDATE api_keys SET last_used_at = now()
          WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= now() - $2::interval)`,
        [apiKeyId, `${LAST_USED_WRITE_INTERVAL_MS} milliseconds`],
      )
      .catch((error: unknown) =>
        this.logger.warn({ err: error, apiKeyId }, "Could not record an API key's last use"),
      )
      .finally(() => this.pendingUseWrites.delete(write));
    this.pendingUseWrites.add(write);
  }

  private async lookup(hash: Buffer): Promise<CachedKey | null> {
    const rows: Array<{
      api_key_id: string;
      key_hash: Buffer;
      livemode: boolean;
      scopes: ApiScope[] | null;
      expires_at: Date | null;
      merchant_id: string;
      kind: AuthenticatedMerchant['kind'];
      name: string;
      logo_url: string | null;
    }> = await this.apiKeys.query(
      `SELECT k.id AS api_key_id, k.key_hash, k.livemode, k.scopes, k.expires_at,
              m.id AS merchant_id, m.kind, m.name, m.logo_url
         FROM api_keys k JOIN merchants m ON m.id = k.merchant_id
        WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND k.livemode = $2
          AND (k.expires_at IS NULL OR k.expires_at > now())`,
      // A key works only in the environment it was issued for (its row's livemode), whatever
      // its prefix says: a sandbox key row in a database a production deployment reads (or the
      // other way round) is not a key of this deployment.
      [hash, this.config.livemode],
    );
    const row = rows[0];
    // The index finds the row; the constant-time compare keeps the final check free of timing hints.
    if (!row || !timingSafeEqual(row.key_hash, hash)) return null;
    return {
      merchant: {
        merchantId: row.merchant_id,
        kind: row.kind,
        name: row.name,
        logoUrl: row.logo_url,
        livemode: row.livemode,
        apiKeyId: row.api_key_id,
        actor: { type: 'api_key', apiKeyId: row.api_key_id },
        permissions: permissionsOfKey(row.scopes),
      },
      expiresAtMs: row.expires_at ? row.expires_at.getTime() : null,
    };
  }
}

/** The rows of an UPDATE ... RETURNING: TypeORM's postgres driver wraps them with the count. */
async function updateReturning<T>(
  manager: EntityManager,
  sql: string,
  params: unknown[],
): Promise<T[]> {
  const [rows] = (await manager.query(sql, params)) as [T[], number];
  return rows;
}
