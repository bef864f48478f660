import { Inject, Injectable } from '@nestjs/common';
import { createHmac, hkdfSync, randomInt } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/common';

export const RECOVERY_CODE_COUNT = 10;
// Without 0/O/1/I/L: a code read from paper is typed right.
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

/**
 * Ten single-use codes that stand in for a TOTP code when the phone is lost. Stored as HMACs
 * under a key derived from WEBHOOK_SECRETS_KEY: a code has about 50 bits, which a plain hash in a
 * stolen database copy would not protect for long; without the key the hashes say nothing.
 */
@Injectable()
export class RecoveryCodes {
  private readonly key: Buffer;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.key = Buffer.from(
      hkdfSync(
        'sha256',
        config.webhooks.secretsKey,
        Buffer.alloc(0),
        'console recovery codes v1',
        32,
      ),
    );
  }

  /** Replaces the user's codes with ten new ones; returns them, to be shown once. */
  async issue(manager: EntityManager, userId: string): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => newRecoveryCode());
    await manager.query(`DELETE FROM console_recovery_codes WHERE user_id = $1`, [userId]);
    await manager.query(
      `INSERT INTO console_recovery_codes (user_id, code_hash)
       SELECT $1, unnest($2::bytea[])`,
      [userId, codes.map((code) => this.hash(code))],
    );
    return codes;
  }

  /** Marks an unused code of the user used; false when it is not one (or was used already). */
  async consume(manager: EntityManager, userId: string, code: string): Promise<boolean> {
    const [, affected]: [unknown, number] = await manager.query(
      `UPDATE console_recovery_codes SET used_at = now()
        WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL`,
      [userId, this.hash(code)],
    );
    return affected === 1;
  }

  /** Case, spaces and dashes as typed do not matter. */
  private hash(code: string): Buffer {
    const normalized = code.toUpperCase().replace(/[^A-Z0-9]/g, '');
    return createHmac('sha256', this.key).update(normalized, 'utf8').digest();
  }
}

/** `XXXXX-XXXXX`: 10 characters of a 31-letter alphabet, about 50 bits. */
function newRecoveryCode(): string {
  const chars = Array.from({ length: 10 }, () => ALPHABET[randomInt(ALPHABET.length)]);
  return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`;
}
