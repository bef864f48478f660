import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { timingSafeEqual } from 'node:crypto';
import { IsNull, Repository } from 'typeorm';
import { APP_CONFIG, AppConfig, ID_PREFIX, newId } from '@app/common';
import { ApiKeyEntity } from './api-key.entity';
import { generateApiKey, hashApiKey, keyHint } from './api-key-format';
import { AuthenticatedMerchant } from './authenticated-merchant';

interface CachedLookup {
  merchant: AuthenticatedMerchant | null;
  expiresAt: number;
}

// Every request authenticates; caching the hash lookup briefly saves a query per request.
// A revoked key stops working within this window on every process.
export const API_KEY_CACHE_TTL_MS = 5_000;
const API_KEY_CACHE_MAX_ENTRIES = 10_000;

export interface CreatedApiKey {
  id: string;
  merchant_id: string;
  api_key: string;
  livemode: boolean;
  created_at: string;
}

@Injectable()
export class ApiKeysService {
  private readonly cache = new Map<string, CachedLookup>();

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
    this.cache.clear();
    return (result.affected ?? 0) > 0;
  }

  async listForMerchant(merchantId: string): Promise<ApiKeyEntity[]> {
    return this.apiKeys.find({ where: { merchantId }, order: { createdAt: 'ASC' } });
  }

  /** The merchant an active key belongs to, or null. The caller has already checked the shape. */
  async authenticate(apiKey: string): Promise<AuthenticatedMerchant | null> {
    const hash = hashApiKey(apiKey);
    const cacheKey = hash.toString('base64');
    const cached = this.cache.get(cacheKey);
    if (cached && cached.expiresAt > Date.now()) return cached.merchant;
    const merchant = await this.lookup(hash);
    if (this.cache.size >= API_KEY_CACHE_MAX_ENTRIES) this.cache.clear();
    this.cache.set(cacheKey, { merchant, expiresAt: Date.now() + API_KEY_CACHE_TTL_MS });
    return merchant;
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
        WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [hash],
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
    };
  }
}
