import { ConsoleRole, ROLE_PERMISSIONS, ROLE_RANK } from '@app/auth';
import { ApiException, ErrorCode } from '@app/common';

/** An inviter or editor never grants a role above its own. */
export function assertMayGrant(actorRole: ConsoleRole, role: ConsoleRole): void {
  if (ROLE_RANK[role] > ROLE_RANK[actorRole]) {
    throw new ApiException(
      ErrorCode.PermissionDenied,
      `Your role (${actorRole}) cannot grant the role ${role}.`,
      'role',
    );
  }
}

/** Only an owner changes or removes an owner (docs/console.md, Roles). */
export function assertMayTouch(actorRole: ConsoleRole, targetRole: ConsoleRole): void {
  if (targetRole === 'owner' && actorRole !== 'owner') {
    throw new ApiException(
      ErrorCode.PermissionDenied,
      'Only an owner can change or remove an owner.',
    );
  }
  assertMayGrant(actorRole, targetRole);
}

export function lastOwner(): ApiException {
  return new ApiException(
    ErrorCode.InvalidState,
    'A team keeps at least one owner: make someone else an owner first.',
  );
}

/**
 * Whether granting `to` (to a new member: `from` null) asks for a fresh two-factor code in
 * production: a role that manages keys or the team, given to someone who held less. Otherwise a
 * stolen session would invite its thief as an owner and mint live keys with the thief's own codes
 * (review finding 3). Lowering a role never asks.
 */
export function grantNeedsFreshCode(from: ConsoleRole | null, to: ConsoleRole): boolean {
  const reachesKeysOrTeam =
    ROLE_PERMISSIONS[to].has('api_keys:write') || ROLE_PERMISSIONS[to].has('team:write');
  return reachesKeysOrTeam && (from === null || ROLE_RANK[to] > ROLE_RANK[from]);
}
