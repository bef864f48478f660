import { ApiKeyEntity } from './api-key.entity';
import { ApiScope } from './permissions';

export type ApiKeyStatus = 'active' | 'expired' | 'revoked';

/** A key as the API keys page lists it: never the key itself. */
export interface ApiKeySummary {
  id: string;
  name: string | null;
  scopes: ApiScope[] | null;
  key_hint: string;
  livemode: boolean;
  status: ApiKeyStatus;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  rolled_from_key_id: string | null;
}

/**
 * A key row as the API keys page shows it, its status as of `now` (the database's clock, which
 * expires keys). Apart from ApiKeysService because it only shapes a row: it reads nothing.
 */
export function summarizeApiKey(row: ApiKeyEntity, now: Date): ApiKeySummary {
  const status: ApiKeyStatus = row.revokedAt
    ? 'revoked'
    : row.expiresAt && row.expiresAt <= now
      ? 'expired'
      : 'active';
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes,
    key_hint: row.keyHint,
    livemode: row.livemode,
    status,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    expires_at: row.expiresAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
    rolled_from_key_id: row.rolledFromKeyId,
  };
}
