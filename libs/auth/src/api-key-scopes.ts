import { API_SCOPES, ApiScope, isApiScope, Permission } from './permissions';

// A secret key reaches every API scope; console-only permissions never belong to a key.
const FULL_KEY_PERMISSIONS: ReadonlySet<Permission> = new Set(API_SCOPES);

/**
 * What a key may do: every API scope for a secret key (null scopes), else the restricted key's
 * scopes, where `x:write` also grants `x:read` (a key that may create payouts reads what it
 * created anyway in the response, and the console offers None / Read / Write per resource).
 */
export function permissionsOfKey(scopes: readonly ApiScope[] | null): ReadonlySet<Permission> {
  if (scopes === null) return FULL_KEY_PERMISSIONS;
  const permissions = new Set<Permission>(scopes);
  for (const scope of scopes) {
    const read = scope.replace(/:write$/, ':read');
    if (isApiScope(read)) permissions.add(read);
  }
  return permissions;
}

/**
 * A restricted key's scopes as stored: known scopes only, without duplicates, in the vocabulary's
 * order, so two keys with the same reach list the same scopes. An empty list would be a key that
 * can do nothing: refused, as an unknown scope is.
 */
export function normalizeScopes(scopes: readonly string[]): ApiScope[] {
  const unknown = scopes.filter((scope) => !isApiScope(scope));
  if (unknown.length) throw new Error(`Unknown API scopes: ${unknown.join(', ')}`);
  if (!scopes.length) throw new Error('A restricted key needs at least one scope');
  return API_SCOPES.filter((scope) => scopes.includes(scope));
}
