import { DataSource } from 'typeorm';
import { AppConfig } from '@app/common';
import { recordAudit } from '../audit/audit-log';
import { ConsoleRealm, normalizeEmail } from '../users/console-user';
import { issuePasswordReset } from './password-reset-issuer';

export class CliPasswordResetError extends Error {}

/**
 * `console:reset-password` and `ops:reset-password`: a reset link for an account nobody in the
 * console can issue one for (an owner, an operator, a member of several teams). Audited with
 * actor_type 'cli'. Built without the console module, which the CLI process does not load.
 */
export async function passwordResetFromCli(
  dataSource: DataSource,
  config: Pick<AppConfig, 'publicUrl'>,
  input: { realm: ConsoleRealm; email: string },
): Promise<{ reset_url: string; expires_at: string }> {
  const email = normalizeEmail(input.email);
  return dataSource.transaction(async (manager) => {
    const users: Array<{ id: string; merchant_id: string | null }> = await manager.query(
      `SELECT u.id, (SELECT m.merchant_id FROM console_memberships m WHERE m.user_id = u.id
                      ORDER BY m.created_at, m.merchant_id LIMIT 1) AS merchant_id
         FROM console_users u WHERE u.realm = $1 AND u.email = $2`,
      [input.realm, email],
    );
    const user = users[0];
    if (!user) throw new CliPasswordResetError(`No ${input.realm} account for ${email}.`);
    const issued = await issuePasswordReset(manager, config, {
      userId: user.id,
      realm: input.realm,
      issuedByUserId: null,
    });
    await recordAudit(manager, {
      merchantId: user.merchant_id,
      actorType: 'cli',
      actorId: null,
      action: 'user.password_reset_issued',
      targetType: 'console_user',
      targetId: user.id,
      details: { email, realm: input.realm, expires_at: issued.expiresAt },
    });
    return { reset_url: issued.resetUrl, expires_at: issued.expiresAt.toISOString() };
  });
}
