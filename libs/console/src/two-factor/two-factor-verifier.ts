import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/common';
import { matchingStep } from './totp';
import { TotpSecretBox } from './totp-secret-box';

/**
 * What a TOTP code turned out to be. `reused`: the code of a time step already accepted (a double
 * submit, a second tab), which proves the secret is known, so it is no guess to count.
 */
export type FreshCodeVerdict = 'accepted' | 'wrong' | 'reused';

interface TotpRow {
  totp_secret_encrypted: string | null;
  totp_enabled_at: Date | null;
  totp_last_step: string | null;
}

/**
 * Checks TOTP codes against a user's sealed secret. A code is accepted once: its time step must
 * be later than the last one accepted (console_users.totp_last_step), which the same statement
 * records, under a row lock so two requests racing with one code cannot both pass.
 */
@Injectable()
export class TwoFactorVerifier {
  private readonly box: TotpSecretBox;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.box = new TotpSecretBox(config.webhooks.secretsKey);
  }

  get secretBox(): TotpSecretBox {
    return this.box;
  }

  /**
   * A fresh TOTP code of an enrolled user (recovery codes are not accepted here): for sign-in's
   * second step and for actions that ask again (creating a live API key). Call it inside a
   * transaction: the step it records commits or rolls back with the caller's change.
   */
  async verifyFreshCode(manager: EntityManager, userId: string, code: string): Promise<boolean> {
    return (await this.accept(manager, userId, code, false)) === 'accepted';
  }

  /** As verifyFreshCode, telling a code already used from a wrong one (step-up/fresh-code.ts). */
  async checkFreshCode(
    manager: EntityManager,
    userId: string,
    code: string,
  ): Promise<FreshCodeVerdict> {
    return this.accept(manager, userId, code, false);
  }

  /** The first code of an enrolment in progress (the secret is stored, not yet enabled). */
  async verifyEnrolmentCode(
    manager: EntityManager,
    userId: string,
    code: string,
  ): Promise<boolean> {
    return (await this.accept(manager, userId, code, true)) === 'accepted';
  }

  private async accept(
    manager: EntityManager,
    userId: string,
    code: string,
    enrolling: boolean,
  ): Promise<FreshCodeVerdict> {
    const rows: TotpRow[] = await manager.query(
      `SELECT totp_secret_encrypted, totp_enabled_at, totp_last_step
         FROM console_users WHERE id = $1 FOR UPDATE`,
      [userId],
    );
    const row = rows[0];
    if (!row?.totp_secret_encrypted) return 'wrong';
    if ((row.totp_enabled_at !== null) === enrolling) return 'wrong';
    const step = matchingStep(this.box.open(row.totp_secret_encrypted, userId), code.trim());
    if (step === null) return 'wrong';
    if (row.totp_last_step !== null && step <= Number(row.totp_last_step)) return 'reused';
    await manager.query(
      `UPDATE console_users SET totp_last_step = $2, updated_at = now() WHERE id = $1`,
      [userId, step],
    );
    return 'accepted';
  }
}
