import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LRUCache } from 'lru-cache';
import { timingSafeEqual } from 'node:crypto';
import { IsNull, Repository } from 'typeorm';
import { APP_CONFIG, AppConfig, ID_PREFIX, newId } from '@app/common';
import { ApiKeyEntity } from './api-key.entity';
import { generateApiKey, hashApiKey, keyHint } from './api-key-format';
import { AuthenticatedMerchant } from './authenticated-merchant';
import { API_SCOPES, Permission } from './permissions';

// A secret key reaches every API scope; console-only permissions never belong to a key.
const FULL_KEY_PERMISSIONS: ReadonlySet<Permission> = new Set(API_SCOPES);

// Every request authenticates; caching the hash lookup briefly saves a query per request.
// A revoked key stops working at once on the process that revoked it, within this window elsewhere.
export const API_KEY_CACHE_TTL_MS = 5_000;
// Least recently used keys leave first, so the keys in use stay cached.
const KNOWN_KEYS_MAX = 10_000;
// Unknown keys are remembered apart (a client retrying a revoked key costs no query), so spraying
// random keys only ever evicts other unknown keys, never a merchant's.
const UNKNOWN_KEYS_MAX = 1_000;

export interface CreatedApiKey {
  id: string;
  merchant_id: string;
  api_key: string;
  livemode: boolean;
  created_at: string;
}

@Injectable()
export class ApiKeysService {
  private readonly knownKeys = new LRUCache<string, AuthenticatedMerchant>({
    max: KNOWN_KEYS_MAX,
    ttl: API_KEY_CACHE_TTL_MS,
  });
  private readonly unknownKeys = new LRUCache<string, true>({
    max: UNKNOWN_KEYS_MAX,
    ttl: API_KEY_CACHE_TTL_MS,
  });

  constructor(
    @InjectRepository(ApiKeyEntity) private readonly apiKeys: Repository<ApiKeyEntity>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Issues a key for this deployment's environment. The plaintext is returned once, never stored. */
  async create(merchantId: string): Promise<CreatedApiKey> {
    const apiKey = generateApiKey(this.config.livemode);
    const row = await this.apiKeys.save(
      this.apiKeys.create({
        id: newId(ID_PREFIX.apiKey),
        merchantId,
        keyHash: hashApiKey(apiKey),
        keyHint: keyHint(apiKey),
        livemode: this.config.livemode,
        revokedAt: null,
      }),
    );
    return {
      id: row.id,
      merchant_id: merchantId,
      api_key: apiKey,
      livemode: row.livemode,
      created_at: row.createdAt.toISOString(),
    };
  }

  /** Returns false when there was no active key with this id. */
  async revoke(apiKeyId: string): Promise<boolean> {
    const result = await this.apiKeys.update(
      { id: apiKeyId, revokedAt: IsNull() },
      { revokedAt: () => 'now()' },
    );
    this.forgetKey(apiKeyId);
    return (result.affected ?? 0) > 0;
  }

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
    const known = this.knownKeys.get(cacheKey);
    if (known) return known;
    if (this.unknownKeys.has(cacheKey)) return null;
    const merchant = await this.lookup(hash);
    if (merchant) this.knownKeys.set(cacheKey, merchant);
    else this.unknownKeys.set(cacheKey, true);
    return merchant;
  }

  private forgetKey(apiKeyId: string): void {
    const cached = [...this.knownKeys.entries()].filter(
      ([, merchant]) => merchant.apiKeyId === apiKeyId,
    );
    for (const [cacheKey] of cached) this.knownKeys.delete(cacheKey);
  }

  private async lookup(hash: Buffer): Promise<AuthenticatedMerchant | null> {
    const rows: Array<{
      api_key_id: string;
      key_hash: Buffer;
      livemode: boolean;
      merchant_id: string;
      kind: AuthenticatedMerchant['kind'];
      name: string;
      logo_url: string | null;
    }> = await this.apiKeys.query(
      `SELECT k.id AS api_key_id, k.key_hash, k.livemode, m.id AS merchant_id, m.kind, m.name, m.logo_url
         FROM api_keys k JOIN merchants m ON m.id = k.merchant_id
        WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND k.livemode = $2`,
      // A key works only in the environment it was issued for (its row's livemode), whatever
      // its prefix says: a sandbox key row in a database a production deployment reads (or the
      // other way round) is not a key of this deployment.
      [hash, this.config.livemode],
    );
    const row = rows[0];
    // The index finds the row; the constant-time compare keeps the final check free of timing hints.
    if (!row || !timingSafeEqual(row.key_hash, hash)) return null;
    return {
      merchantId: row.merchant_id,
      kind: row.kind,
      name: row.name,
      logoUrl: row.logo_url,
      livemode: row.livemode,
      apiKeyId: row.api_key_id,
      actor: { type: 'api_key', apiKeyId: row.api_key_id },
      permissions: FULL_KEY_PERMISSIONS,
    };
  }
}
