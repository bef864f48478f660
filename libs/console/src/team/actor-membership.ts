import { EntityManager } from 'typeorm';
import { ConsoleRole, Permission, ROLE_PERMISSIONS } from '@app/auth';
import { ApiException, ErrorCode } from '@app/common';

/**
 * The actor's role at the merchant as it stands now, read under a row lock held until the
 * caller's transaction ends. The guard read the role before the transaction began: a member
 * removed or demoted meanwhile must not see a change in flight commit with the old role
 * (review finding 11). FOR SHARE makes a concurrent removal or role change wait for this
 * transaction, and this one see the other's result if it committed first.
 */
export async function lockCurrentRole(
  manager: EntityManager,
  merchantId: string,
  userId: string,
  permission: Permission,
): Promise<ConsoleRole> {
  const rows: Array<{ role: ConsoleRole }> = await manager.query(
    `SELECT role FROM console_memberships WHERE merchant_id = $1 AND user_id = $2 FOR SHARE`,
    [merchantId, userId],
  );
  const role = rows[0]?.role;
  if (!role) {
    throw new ApiException(ErrorCode.PermissionDenied, 'You are no longer a member of this team.');
  }
  assertRoleAllows(role, permission);
  return role;
}

export function assertRoleAllows(role: ConsoleRole, permission: Permission): void {
  if (!ROLE_PERMISSIONS[role].has(permission)) {
    throw new ApiException(
      ErrorCode.PermissionDenied,
      `Your role (${role}) does not allow ${permission}.`,
    );
  }
}
