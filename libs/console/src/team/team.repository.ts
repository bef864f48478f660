import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ConsoleRole } from '@app/auth';
import { updateReturning } from '../db/sql';

export interface TeamMember {
  userId: string;
  email: string;
  role: ConsoleRole;
  twoFactorEnabled: boolean;
  joinedAt: Date;
}

interface MemberRow {
  user_id: string;
  email: string;
  role: ConsoleRole;
  two_factor_enabled: boolean;
  created_at: Date;
}

const toMember = (row: MemberRow): TeamMember => ({
  userId: row.user_id,
  email: row.email,
  role: row.role,
  twoFactorEnabled: row.two_factor_enabled,
  joinedAt: row.created_at,
});

const SELECT = `SELECT m.user_id, u.email, m.role, u.totp_enabled_at IS NOT NULL AS two_factor_enabled,
                       m.created_at
                  FROM console_memberships m JOIN console_users u ON u.id = m.user_id`;

/** A merchant's memberships. */
@Injectable()
export class TeamRepository {
  async list(manager: EntityManager, merchantId: string): Promise<TeamMember[]> {
    const rows: MemberRow[] = await manager.query(
      `${SELECT} WHERE m.merchant_id = $1 ORDER BY m.created_at, m.user_id`,
      [merchantId],
    );
    return rows.map(toMember);
  }

  /**
   * Locks the merchant's owner memberships, the target's and the actor's, in one statement in
   * user id order: two owners demoting each other at once must not both succeed and leave the
   * team without one, and two admins removing each other must not deadlock. The actor's row is
   * its current role (review finding 11): a removal or demotion that committed first is seen.
   */
  async lockForChange(
    manager: EntityManager,
    merchantId: string,
    userId: string,
    actorUserId: string,
  ): Promise<{ target: TeamMember | null; actor: TeamMember | null; owners: number }> {
    const rows: MemberRow[] = await manager.query(
      `${SELECT} WHERE m.merchant_id = $1 AND (m.role = 'owner' OR m.user_id IN ($2, $3))
        ORDER BY m.user_id FOR UPDATE OF m`,
      [merchantId, userId, actorUserId],
    );
    const member = (id: string) => {
      const row = rows.find((candidate) => candidate.user_id === id);
      return row ? toMember(row) : null;
    };
    return {
      target: member(userId),
      actor: member(actorUserId),
      owners: rows.filter((row) => row.role === 'owner').length,
    };
  }

  /** A member's role, read without a lock: to ask for a fresh code before the change's lock. */
  async roleOf(
    manager: EntityManager,
    merchantId: string,
    userId: string,
  ): Promise<ConsoleRole | null> {
    const rows: Array<{ role: ConsoleRole }> = await manager.query(
      `SELECT role FROM console_memberships WHERE merchant_id = $1 AND user_id = $2`,
      [merchantId, userId],
    );
    return rows[0]?.role ?? null;
  }

  async findByEmail(manager: EntityManager, merchantId: string, email: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM console_memberships m JOIN console_users u ON u.id = m.user_id
        WHERE m.merchant_id = $1 AND u.email = $2 AND u.realm = 'merchant'`,
      [merchantId, email],
    );
    return rows.length > 0;
  }

  async setRole(manager: EntityManager, merchantId: string, userId: string, role: ConsoleRole) {
    await manager.query(
      `UPDATE console_memberships SET role = $3 WHERE merchant_id = $1 AND user_id = $2`,
      [merchantId, userId, role],
    );
  }

  async remove(manager: EntityManager, merchantId: string, userId: string) {
    await manager.query(`DELETE FROM console_memberships WHERE merchant_id = $1 AND user_id = $2`, [
      merchantId,
      userId,
    ]);
  }

  /**
   * Revokes the pending invitations a member sent to this merchant (when they are removed: an
   * invitation must not outlive the authority that issued it). Returns what it revoked.
   */
  async revokeInvitationsSentBy(
    manager: EntityManager,
    merchantId: string,
    userId: string,
  ): Promise<Array<{ id: string; email: string; role: ConsoleRole | null }>> {
    return updateReturning(
      manager,
      `UPDATE console_invitations SET revoked_at = now()
        WHERE merchant_id = $1 AND invited_by_user_id = $2
          AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()
        RETURNING id, email, role`,
      [merchantId, userId],
    );
  }
}
