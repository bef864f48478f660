import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/common';
import { randomToken, sha256 } from '../crypto/tokens';
import { execute } from '../db/sql';
import {
  ConsoleSession,
  ConsoleSessionState,
  ViewAsGrant,
  SESSION_ABSOLUTE_HOURS,
  SESSION_TOUCH_INTERVAL_MS,
} from './console-session';

interface SessionRow {
  id_hash: Buffer;
  user_id: string;
  email: string;
  realm: ConsoleSession['realm'];
  totp_enabled: boolean;
  two_factor_verified: boolean;
  csrf_token: string;
  merchant_id: string | null;
  role: ConsoleSession['role'];
  created_at: Date;
  last_seen_at: Date;
  operator_role: ConsoleSession['operatorRole'];
  grant_id: string | null;
  grant_merchant_id: string | null;
  grant_reason: string | null;
  grant_expires_at: Date | null;
}

export interface NewSession {
  /** The cookie's value: shown to the browser once, never stored. */
  cookieValue: string;
  csrfToken: string;
}

export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
}

/** console_sessions: the table keeps the SHA-256 of each id, never the id. */
@Injectable()
export class ConsoleSessionsRepository {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(
    manager: EntityManager,
    input: {
      userId: string;
      merchantId: string | null;
      client: ClientInfo;
      /** Both factors were checked in this request (an invitation accepted by an existing account). */
      twoFactorVerified?: boolean;
    },
  ): Promise<NewSession> {
    const cookieValue = randomToken();
    const csrfToken = randomToken();
    await manager.query(
      `INSERT INTO console_sessions
         (id_hash, user_id, merchant_id, csrf_token, expires_at, ip, user_agent,
          two_factor_verified_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(hours => $5), $6, $7,
               CASE WHEN $8::boolean THEN now() END)`,
      [
        sha256(cookieValue),
        input.userId,
        input.merchantId,
        csrfToken,
        SESSION_ABSOLUTE_HOURS,
        input.client.ip,
        input.client.userAgent?.slice(0, 500) ?? null,
        input.twoFactorVerified ?? false,
      ],
    );
    return { cookieValue, csrfToken };
  }

  /**
   * The live session of a cookie: not revoked, within its absolute lifetime and idle timeout.
   * Refreshes last_seen_at when it is more than a minute old.
   */
  async findActive(cookieValue: string): Promise<ConsoleSession | null> {
    const rows: SessionRow[] = await this.dataSource.query(
      `SELECT s.id_hash, s.user_id, u.email, u.realm, u.totp_enabled_at IS NOT NULL AS totp_enabled,
              s.two_factor_verified_at IS NOT NULL AS two_factor_verified, s.csrf_token,
              s.merchant_id, m.role, s.created_at, s.last_seen_at, u.operator_role,
              g.id AS grant_id, g.merchant_id AS grant_merchant_id, g.reason AS grant_reason,
              g.expires_at AS grant_expires_at
         FROM console_sessions s
         JOIN console_users u ON u.id = s.user_id
         LEFT JOIN console_memberships m ON m.user_id = s.user_id AND m.merchant_id = s.merchant_id
         -- An operator's view as a merchant (docs/operators.md): live until it expires or ends.
         LEFT JOIN operator_view_grants g ON u.realm = 'operator' AND g.session_id_hash = s.id_hash
               AND g.ended_at IS NULL AND g.expires_at > now()
        WHERE s.id_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > now()
          AND s.last_seen_at > now() - make_interval(mins => $2)`,
      [sha256(cookieValue), this.config.console.sessionIdleMinutes],
    );
    const row = rows[0];
    if (!row) return null;
    if (Date.now() - row.last_seen_at.getTime() > SESSION_TOUCH_INTERVAL_MS) {
      await this.dataSource.query(
        `UPDATE console_sessions SET last_seen_at = now() WHERE id_hash = $1`,
        [row.id_hash],
      );
    }
    return toSession(row);
  }

  /**
   * The second factor is done: the session gets a new id and a new CSRF token (the cookie and
   * token issued at the password step stop working), so an id planted or seen before the
   * privilege change is worth nothing after it. No view grant can point at the old id yet: those
   * need a signed-in session.
   */
  async markTwoFactorVerified(manager: EntityManager, idHash: Buffer): Promise<NewSession> {
    const cookieValue = randomToken();
    const csrfToken = randomToken();
    await manager.query(
      `UPDATE console_sessions
          SET id_hash = $2, csrf_token = $3, two_factor_verified_at = now(), last_seen_at = now()
        WHERE id_hash = $1`,
      [idHash, sha256(cookieValue), csrfToken],
    );
    return { cookieValue, csrfToken };
  }

  async switchMerchant(manager: EntityManager, idHash: Buffer, merchantId: string): Promise<void> {
    await manager.query(`UPDATE console_sessions SET merchant_id = $2 WHERE id_hash = $1`, [
      idHash,
      merchantId,
    ]);
  }

  /** Ends a session of the user (by its hex id); false when there was no live one. */
  async revoke(manager: EntityManager, userId: string, idHashHex: string): Promise<boolean> {
    if (!/^[0-9a-f]{64}$/.test(idHashHex)) return false;
    const affected = await execute(
      manager,
      `UPDATE console_sessions SET revoked_at = now()
        WHERE id_hash = $1 AND user_id = $2 AND revoked_at IS NULL`,
      [Buffer.from(idHashHex, 'hex'), userId],
    );
    return affected === 1;
  }

  /** Ends every session of a user at one merchant (the user was removed from its team). */
  async revokeAtMerchant(
    manager: EntityManager,
    userId: string,
    merchantId: string,
  ): Promise<void> {
    await manager.query(
      `UPDATE console_sessions SET revoked_at = now()
        WHERE user_id = $1 AND merchant_id = $2 AND revoked_at IS NULL`,
      [userId, merchantId],
    );
  }

  /** The user's live sessions, most recently used first. */
  async listActive(userId: string): Promise<
    Array<{
      id: string;
      createdAt: Date;
      lastSeenAt: Date;
      ip: string | null;
      userAgent: string | null;
    }>
  > {
    const rows: Array<{
      id_hash: Buffer;
      created_at: Date;
      last_seen_at: Date;
      ip: string | null;
      user_agent: string | null;
    }> = await this.dataSource.query(
      `SELECT id_hash, created_at, last_seen_at, ip, user_agent FROM console_sessions
        WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > now()
          AND last_seen_at > now() - make_interval(mins => $2)
        ORDER BY last_seen_at DESC`,
      [userId, this.config.console.sessionIdleMinutes],
    );
    return rows.map((row) => ({
      id: row.id_hash.toString('hex'),
      createdAt: row.created_at,
      lastSeenAt: row.last_seen_at,
      ip: row.ip,
      userAgent: row.user_agent,
    }));
  }
}

function stateOf(row: SessionRow): ConsoleSessionState {
  if (row.two_factor_verified) return 'signed_in';
  return row.totp_enabled ? 'two_factor_pending' : 'enrolment_pending';
}

function viewAsOf(row: SessionRow): ViewAsGrant | null {
  if (!row.grant_id || !row.grant_merchant_id || !row.grant_reason || !row.grant_expires_at) {
    return null;
  }
  return {
    grantId: row.grant_id,
    merchantId: row.grant_merchant_id,
    reason: row.grant_reason,
    expiresAt: row.grant_expires_at,
  };
}

function toSession(row: SessionRow): ConsoleSession {
  const viewAs = viewAsOf(row);
  return {
    id: row.id_hash.toString('hex'),
    idHash: row.id_hash,
    userId: row.user_id,
    email: row.email,
    realm: row.realm,
    state: stateOf(row),
    csrfToken: row.csrf_token,
    // A view as a merchant reads as that merchant's viewer, whatever the session's own merchant.
    merchantId: viewAs ? viewAs.merchantId : row.merchant_id,
    role: viewAs ? 'viewer' : row.role,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    operatorRole: row.operator_role,
    viewAs,
  };
}
