import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { sha256 } from '../crypto/tokens';
import { ConsoleRealm } from '../users/console-user';

/** A reset link lives an hour: long enough to hand over, short enough to go stale. */
export const PASSWORD_RESET_VALID_MINUTES = 60;

/** A reset link not used, replaced or expired, with the account it resets. */
export interface PendingPasswordReset {
  id: string;
  userId: string;
  realm: ConsoleRealm;
  email: string;
  totpEnabled: boolean;
}

interface PendingRow {
  id: string;
  user_id: string;
  realm: ConsoleRealm;
  email: string;
  totp_enabled_at: Date | null;
}

const PENDING = `r.used_at IS NULL AND r.revoked_at IS NULL AND r.expires_at > now()`;

/** console_password_resets: the table keeps each token's SHA-256, never the token. */
@Injectable()
export class PasswordResetsRepository {
  /** A new link for the user; the user's earlier pending links stop working. */
  async create(
    manager: EntityManager,
    input: { userId: string; tokenHash: Buffer; issuedByUserId: string | null },
  ): Promise<{ id: string; expiresAt: Date }> {
    await manager.query(
      `UPDATE console_password_resets r SET revoked_at = now() WHERE r.user_id = $1 AND ${PENDING}`,
      [input.userId],
    );
    const rows: Array<{ id: string; expires_at: Date }> = await manager.query(
      `INSERT INTO console_password_resets (token_hash, user_id, issued_by_user_id, expires_at)
       VALUES ($1, $2, $3, now() + make_interval(mins => $4))
       RETURNING id, expires_at`,
      [input.tokenHash, input.userId, input.issuedByUserId, PASSWORD_RESET_VALID_MINUTES],
    );
    return { id: rows[0].id, expiresAt: rows[0].expires_at };
  }

  /** The pending link of a token. `lock`: FOR UPDATE of the link, so it is used only once. */
  async findPendingByToken(
    manager: EntityManager,
    token: string,
    lock = false,
  ): Promise<PendingPasswordReset | null> {
    const rows: PendingRow[] = await manager.query(
      `SELECT r.id, r.user_id, u.realm, u.email, u.totp_enabled_at
         FROM console_password_resets r JOIN console_users u ON u.id = r.user_id
        WHERE r.token_hash = $1 AND ${PENDING} ${lock ? 'FOR UPDATE OF r' : ''}`,
      [sha256(token)],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      id: row.id,
      userId: row.user_id,
      realm: row.realm,
      email: row.email,
      totpEnabled: row.totp_enabled_at !== null,
    };
  }

  async markUsed(manager: EntityManager, id: string): Promise<void> {
    await manager.query(`UPDATE console_password_resets SET used_at = now() WHERE id = $1`, [id]);
  }

  async setPassword(manager: EntityManager, userId: string, passwordHash: string): Promise<void> {
    await manager.query(
      `UPDATE console_users SET password_hash = $2, updated_at = now() WHERE id = $1`,
      [userId, passwordHash],
    );
  }

  /** Signs the user out everywhere; returns how many sessions were open. */
  async endAllSessions(manager: EntityManager, userId: string): Promise<number> {
    const [, affected]: [unknown, number] = await manager.query(
      `UPDATE console_sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL`,
      [userId],
    );
    return affected;
  }

  /** The merchant a user's audit entries go to: the oldest membership (none for operators). */
  async firstMerchantOf(manager: EntityManager, userId: string): Promise<string | null> {
    const rows: Array<{ merchant_id: string }> = await manager.query(
      `SELECT merchant_id FROM console_memberships WHERE user_id = $1
        ORDER BY created_at, merchant_id LIMIT 1`,
      [userId],
    );
    return rows[0]?.merchant_id ?? null;
  }
}
