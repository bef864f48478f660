import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { execute, updateReturning } from '../db/sql';
import { PASSKEY_CHALLENGE_MINUTES } from './relying-party';

export type PasskeyChallengePurpose = 'registration' | 'sign_in';

export interface StoredPasskey {
  id: string;
  userId: string;
  credentialId: string;
  publicKey: Uint8Array<ArrayBuffer>;
  signCount: number;
  transports: string[];
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

interface PasskeyRow {
  id: string;
  user_id: string;
  credential_id: string;
  public_key: Buffer;
  sign_count: string;
  transports: string[];
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

const toPasskey = (row: PasskeyRow): StoredPasskey => ({
  id: row.id,
  userId: row.user_id,
  credentialId: row.credential_id,
  publicKey: new Uint8Array(row.public_key),
  signCount: Number(row.sign_count),
  transports: row.transports,
  name: row.name,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
});

/** Expired challenges each new one deletes: more than a ceremony adds. */
const PRUNE_PER_CHALLENGE = 10;

/** console_passkeys and the ceremonies' challenges (migration 1766540000000). */
@Injectable()
export class PasskeysRepository {
  async listOf(manager: EntityManager, userId: string): Promise<StoredPasskey[]> {
    const rows: PasskeyRow[] = await manager.query(
      `SELECT * FROM console_passkeys WHERE user_id = $1 ORDER BY created_at, id`,
      [userId],
    );
    return rows.map(toPasskey);
  }

  async hasAny(manager: EntityManager, userId: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM console_passkeys WHERE user_id = $1 LIMIT 1`,
      [userId],
    );
    return rows.length > 0;
  }

  /** The user's credential of that id, locked: its counter is compared and then advanced. */
  async lockByCredentialId(
    manager: EntityManager,
    userId: string,
    credentialId: string,
  ): Promise<StoredPasskey | null> {
    const rows: PasskeyRow[] = await manager.query(
      `SELECT * FROM console_passkeys WHERE user_id = $1 AND credential_id = $2 FOR UPDATE`,
      [userId, credentialId],
    );
    return rows[0] ? toPasskey(rows[0]) : null;
  }

  /** null when the credential is registered already (to this user or another). */
  async insert(
    manager: EntityManager,
    passkey: Pick<
      StoredPasskey,
      'userId' | 'credentialId' | 'publicKey' | 'signCount' | 'transports' | 'name'
    >,
  ): Promise<StoredPasskey | null> {
    const rows: PasskeyRow[] = await manager.query(
      `INSERT INTO console_passkeys
         (user_id, credential_id, public_key, sign_count, transports, name)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (credential_id) DO NOTHING
       RETURNING *`,
      [
        passkey.userId,
        passkey.credentialId,
        Buffer.from(passkey.publicKey),
        passkey.signCount,
        passkey.transports,
        passkey.name,
      ],
    );
    return rows[0] ? toPasskey(rows[0]) : null;
  }

  async recordUse(manager: EntityManager, id: string, signCount: number): Promise<void> {
    await manager.query(
      `UPDATE console_passkeys SET sign_count = $2, last_used_at = now() WHERE id = $1`,
      [id, signCount],
    );
  }

  /** The removed passkey's name, or null when the user has no passkey of that id. */
  async remove(manager: EntityManager, userId: string, id: string): Promise<string | null> {
    if (!/^[0-9a-f-]{36}$/.test(id)) return null;
    const rows = await updateReturning<{ name: string }>(
      manager,
      `DELETE FROM console_passkeys WHERE id = $1 AND user_id = $2 RETURNING name`,
      [id, userId],
    );
    return rows[0]?.name ?? null;
  }

  /** A new challenge for the session and purpose, replacing an earlier one not yet answered. */
  async storeChallenge(
    manager: EntityManager,
    sessionIdHash: Buffer,
    purpose: PasskeyChallengePurpose,
    userId: string,
    challenge: string,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO console_passkey_challenges
         (session_id_hash, purpose, user_id, challenge, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(mins => $5))
       ON CONFLICT (session_id_hash, purpose) DO UPDATE
         SET user_id = EXCLUDED.user_id, challenge = EXCLUDED.challenge,
             expires_at = EXCLUDED.expires_at`,
      [sessionIdHash, purpose, userId, challenge, PASSKEY_CHALLENGE_MINUTES],
    );
    await execute(
      manager,
      `DELETE FROM console_passkey_challenges
        WHERE (session_id_hash, purpose) IN (
                SELECT session_id_hash, purpose FROM console_passkey_challenges
                 WHERE expires_at < now() ORDER BY expires_at LIMIT $1)`,
      [PRUNE_PER_CHALLENGE],
    );
  }

  /**
   * Takes the session's live challenge for the purpose, whatever the answer then proves: each
   * challenge is answered at most once. null when there is none, or it expired.
   */
  async takeChallenge(
    manager: EntityManager,
    sessionIdHash: Buffer,
    purpose: PasskeyChallengePurpose,
    userId: string,
  ): Promise<string | null> {
    const [taken] = await updateReturning<{ challenge: string; live: boolean }>(
      manager,
      `DELETE FROM console_passkey_challenges
        WHERE session_id_hash = $1 AND purpose = $2 AND user_id = $3
        RETURNING challenge, expires_at > now() AS live`,
      [sessionIdHash, purpose, userId],
    );
    return taken?.live ? taken.challenge : null;
  }
}
