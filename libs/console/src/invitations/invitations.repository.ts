import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ID_PREFIX, newId } from '@app/common';
import { sha256 } from '../crypto/tokens';
import { execute } from '../db/sql';
import { INVITATION_VALID_DAYS, PendingInvitation } from './invitation';

interface InvitationRow {
  id: string;
  realm: PendingInvitation['realm'];
  merchant_id: string | null;
  merchant_name: string | null;
  email: string;
  role: PendingInvitation['role'];
  expires_at: Date;
  created_at: Date;
  invited_by_email: string | null;
}

const PENDING = `i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > now()`;
const SELECT = `SELECT i.id, i.realm, i.merchant_id, m.name AS merchant_name, i.email, i.role,
                       i.expires_at, i.created_at, u.email AS invited_by_email
                  FROM console_invitations i
                  LEFT JOIN merchants m ON m.id = i.merchant_id
                  LEFT JOIN console_users u ON u.id = i.invited_by_user_id`;

const toInvitation = (row: InvitationRow): PendingInvitation => ({
  id: row.id,
  realm: row.realm,
  merchantId: row.merchant_id,
  merchantName: row.merchant_name,
  email: row.email,
  role: row.role,
  expiresAt: row.expires_at,
});

/** console_invitations: the table keeps each token's SHA-256, never the token. */
@Injectable()
export class InvitationsRepository {
  async create(
    manager: EntityManager,
    input: Omit<PendingInvitation, 'id' | 'merchantName' | 'expiresAt'> & {
      tokenHash: Buffer;
      invitedByUserId: string | null;
    },
  ): Promise<{ id: string; expiresAt: Date }> {
    const id = newId(ID_PREFIX.invitation);
    const rows: Array<{ expires_at: Date }> = await manager.query(
      `INSERT INTO console_invitations
         (id, token_hash, realm, merchant_id, email, role, invited_by_user_id, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(days => $8))
       RETURNING expires_at`,
      [
        id,
        input.tokenHash,
        input.realm,
        input.merchantId,
        input.email,
        input.role,
        input.invitedByUserId,
        INVITATION_VALID_DAYS,
      ],
    );
    return { id, expiresAt: rows[0].expires_at };
  }

  /** The pending invitation of a token: not accepted, revoked or expired. `lock`: FOR UPDATE. */
  async findPendingByToken(
    manager: EntityManager,
    token: string,
    lock = false,
  ): Promise<PendingInvitation | null> {
    const rows: InvitationRow[] = await manager.query(
      `${SELECT} WHERE i.token_hash = $1 AND ${PENDING} ${lock ? 'FOR UPDATE OF i' : ''}`,
      [sha256(token)],
    );
    return rows[0] ? toInvitation(rows[0]) : null;
  }

  async markAccepted(manager: EntityManager, id: string): Promise<void> {
    await manager.query(`UPDATE console_invitations SET accepted_at = now() WHERE id = $1`, [id]);
  }

  /** A merchant's pending invitations, newest first, with who sent each. */
  async listPending(
    manager: EntityManager,
    merchantId: string,
  ): Promise<Array<PendingInvitation & { createdAt: Date; invitedByEmail: string | null }>> {
    const rows: InvitationRow[] = await manager.query(
      `${SELECT} WHERE i.merchant_id = $1 AND ${PENDING} ORDER BY i.created_at DESC, i.id DESC`,
      [merchantId],
    );
    return rows.map((row) => ({
      ...toInvitation(row),
      createdAt: row.created_at,
      invitedByEmail: row.invited_by_email,
    }));
  }

  async findPendingOfMerchant(
    manager: EntityManager,
    merchantId: string,
    id: string,
  ): Promise<PendingInvitation | null> {
    const rows: InvitationRow[] = await manager.query(
      `${SELECT} WHERE i.id = $1 AND i.merchant_id = $2 AND ${PENDING} FOR UPDATE OF i`,
      [id, merchantId],
    );
    return rows[0] ? toInvitation(rows[0]) : null;
  }

  async revoke(manager: EntityManager, id: string): Promise<boolean> {
    const affected = await execute(
      manager,
      `UPDATE console_invitations SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL`,
      [id],
    );
    return affected === 1;
  }
}
