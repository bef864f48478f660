import { EntityManager } from 'typeorm';
import { ApiScope } from '@app/auth';

/**
 * A key's scopes (null: a secret key), or undefined when the merchant has no such key. `lock`
 * takes the row lock roll takes anyway, so the check and the roll see the same key.
 */
export async function scopesOfKey(
  manager: EntityManager,
  merchantId: string,
  apiKeyId: string,
  lock = false,
): Promise<ApiScope[] | null | undefined> {
  const rows: Array<{ scopes: ApiScope[] | null }> = await manager.query(
    `SELECT scopes FROM api_keys WHERE id = $1 AND merchant_id = $2 ${lock ? 'FOR UPDATE' : ''}`,
    [apiKeyId, merchantId],
  );
  return rows[0]?.scopes;
}
