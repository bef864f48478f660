import type { Repository } from 'typeorm';
import type { AppConfig } from '@app/common';
import { ApiKeyEntity } from './api-key.entity';
import { generateApiKey, hashApiKey } from './api-key-format';
import { normalizeScopes, permissionsOfKey } from './api-key-scopes';
import { ApiKeysService } from './api-keys.service';
import { API_SCOPES } from './permissions';

/** A repository answering the key lookup from one known key, counting the lookups. */
function fakeRepository(validKey: string) {
  const validHash = hashApiKey(validKey);
  const repository = {
    queries: 0,
    lastUseWrites: 0,
    query: async (sql: string, [hash]: [Buffer]): Promise<Array<Record<string, unknown>>> => {
      if (sql.includes('last_used_at = now()')) {
        repository.lastUseWrites += 1;
        return [];
      }
      repository.queries += 1;
      if (!hash.equals(validHash)) return [];
      return [
        {
          api_key_id: 'key_1',
          key_hash: validHash,
          livemode: false,
          scopes: null,
          expires_at: null,
          merchant_id: 'mer_1',
          kind: 'direct',
          name: 'Shop',
          logo_url: null,
        },
      ];
    },
  };
  return repository;
}

function serviceWith(repository: ReturnType<typeof fakeRepository>): ApiKeysService {
  return new ApiKeysService(
    repository as unknown as Repository<ApiKeyEntity>,
    { livemode: false } as AppConfig,
    // Long enough that the valid key's entry outlives the loop however slow the machine.
    60 * 60_000,
  );
}

describe('ApiKeysService key cache', () => {
  it('keeps a valid key cached while 20,000 random unknown keys are tried', async () => {
    const validKey = generateApiKey(false);
    const repository = fakeRepository(validKey);
    const keys = serviceWith(repository);
    expect(await keys.authenticate(validKey)).toMatchObject({ merchantId: 'mer_1' });
    let authenticated = 0;
    for (let i = 0; i < 20_000; i++) {
      // Distinct and never issued (issued keys are random base62), and quick to make.
      if (await keys.authenticate(`sk_test_${String(i).padStart(43, '0')}`)) authenticated += 1;
    }
    expect(authenticated).toBe(0);
    const queriesBefore = repository.queries;
    expect(await keys.authenticate(validKey)).toMatchObject({ merchantId: 'mer_1' });
    expect(repository.queries).toBe(queriesBefore);
    // Used twice within a minute: its last use is written once.
    expect(repository.lastUseWrites).toBe(1);
  });
});

describe('ApiKeysService expiry of cached keys', () => {
  afterEach(() => jest.restoreAllMocks());

  it('refuses a rolled key once its expires_at passed, though its cache entry is still fresh', async () => {
    const validKey = generateApiKey(false);
    const repository = fakeRepository(validKey);
    const expiresAt = Date.now() + 30_000;
    const query = repository.query;
    repository.query = async (sql: string, params: [Buffer]) => {
      const rows = await query(sql, params);
      return rows.map((row) => ({ ...row, expires_at: new Date(expiresAt) }));
    };
    const keys = serviceWith(repository);
    expect(await keys.authenticate(validKey)).toMatchObject({ merchantId: 'mer_1' });
    const lookups = repository.queries;
    jest.spyOn(Date, 'now').mockReturnValue(expiresAt);
    expect(await keys.authenticate(validKey)).toBeNull();
    // Decided from the cached entry's expiry, not by asking the database again.
    expect(repository.queries).toBe(lookups);
  });
});

describe('permissionsOfKey', () => {
  it('gives a secret key every API scope and no console permission', () => {
    const permissions = permissionsOfKey(null);
    expect([...permissions].sort()).toEqual([...API_SCOPES].sort());
    expect(permissions.has('api_keys:write')).toBe(false);
  });

  it('gives a restricted key its scopes, each write with its read', () => {
    expect([...permissionsOfKey(['payouts:write', 'balances:read'])].sort()).toEqual([
      'balances:read',
      'payouts:read',
      'payouts:write',
    ]);
  });

  it('stores scopes known, unique and in the vocabulary order, refusing empty or unknown ones', () => {
    expect(normalizeScopes(['payouts:write', 'checkout_sessions:read', 'payouts:write'])).toEqual([
      'checkout_sessions:read',
      'payouts:write',
    ]);
    expect(() => normalizeScopes([])).toThrow();
    expect(() => normalizeScopes(['api_keys:write'])).toThrow('Unknown API scopes: api_keys:write');
  });
});
