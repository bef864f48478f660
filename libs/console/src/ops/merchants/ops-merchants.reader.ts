import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig, ApiException } from '@app/common';

interface MerchantRow {
  id: string;
  name: string;
  kind: 'direct' | 'psp';
  created_at: Date;
  active_keys: string;
  revoked_keys: string;
}

interface KeyRow {
  id: string;
  key_hint: string;
  name: string | null;
  scopes: string[] | null;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
}

const iso = (value: Date | null) => (value ? value.toISOString() : null);

/**
 * Merchants and their keys as operators see them: never a secret (a key is its hint). Keys of
 * this deployment's environment only, like everything else the console shows.
 */
@Injectable()
export class OpsMerchantsReader {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Newest first; `startingAfter` is the last merchant id of the previous page. */
  async list(limit: number, startingAfter?: string) {
    if (startingAfter) await this.mustExist(startingAfter, 'starting_after');
    const rows: MerchantRow[] = await this.dataSource.query(
      `SELECT m.id, m.name, m.kind, m.created_at,
              count(k.id) FILTER (WHERE k.revoked_at IS NULL
                AND (k.expires_at IS NULL OR k.expires_at > now())) AS active_keys,
              count(k.id) FILTER (WHERE k.revoked_at IS NOT NULL) AS revoked_keys
         FROM merchants m
         LEFT JOIN api_keys k ON k.merchant_id = m.id AND k.livemode = $3
        WHERE $2::text IS NULL
           OR (m.created_at, m.id) < (SELECT created_at, id FROM merchants WHERE id = $2)
        GROUP BY m.id
        ORDER BY m.created_at DESC, m.id DESC
        LIMIT $1`,
      [limit + 1, startingAfter ?? null, this.config.livemode],
    );
    return {
      data: rows.slice(0, limit).map((row) => ({
        id: row.id,
        name: row.name,
        kind: row.kind,
        created_at: row.created_at.toISOString(),
        keys: { active: Number(row.active_keys), revoked: Number(row.revoked_keys) },
      })),
      has_more: rows.length > limit,
    };
  }

  async one(merchantId: string) {
    const [merchant]: Array<Omit<MerchantRow, 'active_keys' | 'revoked_keys'>> =
      await this.dataSource.query(
        `SELECT id, name, kind, created_at FROM merchants WHERE id = $1`,
        [merchantId],
      );
    if (!merchant) throw ApiException.notFound('merchant', merchantId);
    const keys: KeyRow[] = await this.dataSource.query(
      `SELECT id, key_hint, name, scopes, created_at, last_used_at, expires_at, revoked_at
         FROM api_keys WHERE merchant_id = $1 AND livemode = $2
        ORDER BY created_at DESC, id DESC`,
      [merchantId, this.config.livemode],
    );
    return {
      id: merchant.id,
      name: merchant.name,
      kind: merchant.kind,
      created_at: merchant.created_at.toISOString(),
      keys: keys.map((key) => ({
        id: key.id,
        hint: key.key_hint,
        name: key.name,
        // Null: a secret key with every permission.
        scopes: key.scopes,
        created_at: key.created_at.toISOString(),
        last_used_at: iso(key.last_used_at),
        expires_at: iso(key.expires_at),
        revoked_at: iso(key.revoked_at),
      })),
    };
  }

  async mustExist(merchantId: string, param = 'merchant_id'): Promise<void> {
    const found: unknown[] = await this.dataSource.query(`SELECT 1 FROM merchants WHERE id = $1`, [
      merchantId,
    ]);
    if (!found.length) throw ApiException.notFound('merchant', merchantId, param);
  }
}
