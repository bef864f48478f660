import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ID_PREFIX, newId } from '@app/common';
import { execute } from '../db/sql';
import { ConsoleMembership, ConsoleRealm, ConsoleUser } from './console-user';

interface UserRow {
  id: string;
  realm: ConsoleRealm;
  email: string;
  password_hash: string | null;
  totp_enabled_at: Date | null;
}

const toUser = (row: UserRow): ConsoleUser => ({
  id: row.id,
  realm: row.realm,
  email: row.email,
  passwordHash: row.password_hash,
  totpEnabled: row.totp_enabled_at !== null,
});

const USER_COLUMNS = 'id, realm, email, password_hash, totp_enabled_at';

/** console_users and console_memberships: who may sign in, and to which merchants. */
@Injectable()
export class ConsoleUsersRepository {
  async findByEmail(
    manager: EntityManager,
    realm: ConsoleRealm,
    email: string,
  ): Promise<ConsoleUser | null> {
    const rows: UserRow[] = await manager.query(
      `SELECT ${USER_COLUMNS} FROM console_users WHERE realm = $1 AND email = $2`,
      [realm, email],
    );
    return rows[0] ? toUser(rows[0]) : null;
  }

  async findById(manager: EntityManager, id: string): Promise<ConsoleUser | null> {
    const rows: UserRow[] = await manager.query(
      `SELECT ${USER_COLUMNS} FROM console_users WHERE id = $1`,
      [id],
    );
    return rows[0] ? toUser(rows[0]) : null;
  }

  async create(
    manager: EntityManager,
    input: { realm: ConsoleRealm; email: string; passwordHash: string },
  ): Promise<string> {
    const id = newId(ID_PREFIX.consoleUser);
    await manager.query(
      `INSERT INTO console_users (id, realm, email, password_hash) VALUES ($1, $2, $3, $4)`,
      [id, input.realm, input.email, input.passwordHash],
    );
    return id;
  }

  /**
   * Stores a new, not yet enabled TOTP secret (sealed); enrolment enables it. Only while no TOTP
   * is enabled: the caller read "not enabled" earlier, and an enrolment finished since then must
   * not be replaced by a secret shown to whoever sent this password (review finding 8). Returns
   * false when TOTP is enabled and nothing was stored.
   */
  async storePendingTotpSecret(
    manager: EntityManager,
    userId: string,
    sealed: string,
  ): Promise<boolean> {
    const stored = await execute(
      manager,
      `UPDATE console_users
          SET totp_secret_encrypted = $2, totp_last_step = NULL, updated_at = now()
        WHERE id = $1 AND totp_enabled_at IS NULL`,
      [userId, sealed],
    );
    return stored === 1;
  }

  async enableTotp(manager: EntityManager, userId: string): Promise<void> {
    await manager.query(
      `UPDATE console_users SET totp_enabled_at = now(), updated_at = now() WHERE id = $1`,
      [userId],
    );
  }

  /** The user's merchants, oldest membership first (the one a new session opens on). */
  async memberships(manager: EntityManager, userId: string): Promise<ConsoleMembership[]> {
    const rows: Array<{
      merchant_id: string;
      name: string;
      kind: 'direct' | 'psp';
      role: ConsoleMembership['role'];
    }> = await manager.query(
      `SELECT m.merchant_id, mer.name, mer.kind, m.role
         FROM console_memberships m JOIN merchants mer ON mer.id = m.merchant_id
        WHERE m.user_id = $1 ORDER BY m.created_at, m.merchant_id`,
      [userId],
    );
    return rows.map((row) => ({
      merchantId: row.merchant_id,
      merchantName: row.name,
      merchantKind: row.kind,
      role: row.role,
    }));
  }

  /**
   * The user's membership of one merchant, locked (FOR SHARE) until the transaction ends: a
   * removal or role change waits for whatever is done on its strength, and one committed before
   * reads as no membership. null when there is none.
   */
  async lockMembership(
    manager: EntityManager,
    userId: string,
    merchantId: string,
  ): Promise<ConsoleMembership | null> {
    const rows: Array<{
      merchant_id: string;
      name: string;
      kind: 'direct' | 'psp';
      role: ConsoleMembership['role'];
    }> = await manager.query(
      `SELECT m.merchant_id, mer.name, mer.kind, m.role
         FROM console_memberships m JOIN merchants mer ON mer.id = m.merchant_id
        WHERE m.user_id = $1 AND m.merchant_id = $2
          FOR SHARE OF m`,
      [userId, merchantId],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      merchantId: row.merchant_id,
      merchantName: row.name,
      merchantKind: row.kind,
      role: row.role,
    };
  }

  async addMembership(
    manager: EntityManager,
    input: { userId: string; merchantId: string; role: string },
  ): Promise<void> {
    await manager.query(
      `INSERT INTO console_memberships (user_id, merchant_id, role) VALUES ($1, $2, $3)`,
      [input.userId, input.merchantId, input.role],
    );
  }
}
