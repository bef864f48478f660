import { API_SCOPES, ApiScope, ConsoleRole, permissionsOfKey, ROLE_PERMISSIONS } from '@app/auth';
import { ApiException, ErrorCode } from '@app/common';

/**
 * A person never issues a key that reaches further than their own role (review finding 1): the
 * key's scopes, with the reads its writes imply, must all be the role's. A secret key (null
 * scopes) holds every API scope, so only a role holding them all (owner, admin) issues or rolls
 * one. Rolling counts as issuing: it hands over a new secret with the old key's reach.
 */
export function assertRoleMayIssue(
  role: ConsoleRole,
  scopes: readonly ApiScope[] | null,
  verb: 'create' | 'roll',
): void {
  const asked = scopes ?? API_SCOPES;
  // The scopes asked for first, so the message names one the person chose.
  const lacking = [...asked, ...permissionsOfKey(asked)].find(
    (scope) => !ROLE_PERMISSIONS[role].has(scope),
  );
  if (!lacking) return;
  const why = scopes
    ? `so it cannot ${verb} a key holding it.`
    : `which a secret key holds (every API scope), so it cannot ${verb} one: use a restricted key with your role's scopes.`;
  throw new ApiException(
    ErrorCode.PermissionDenied,
    `Your role (${role}) does not allow ${lacking}, ${why}`,
  );
}
