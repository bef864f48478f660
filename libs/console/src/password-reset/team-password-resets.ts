import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ConsoleRole } from '@app/auth';
import { APP_CONFIG, AppConfig, ApiException, ErrorCode } from '@app/common';
import { recordAudit } from '../audit/audit-log';
import { ConsoleSession } from '../sessions/console-session';
import { ClientInfo } from '../sessions/console-sessions.repository';
import { lockCurrentRole } from '../team/actor-membership';
import { assertMayTouch } from '../team/team-rules';
import { issuePasswordReset } from './password-reset-issuer';

type Actor = ConsoleSession & { merchantId: string; role: ConsoleRole };

/**
 * Settings → Team → "Reset link": an owner or admin issues a member a password reset link to
 * hand over (the service sends no e-mail). Never for someone above the issuer (only an owner
 * for an owner), nor for an account that is also in another team: that team's people would not
 * know (an operator issues those, `console:reset-password`). Audited with the link's issuance.
 */
@Injectable()
export class TeamPasswordResets {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async issue(
    actor: Actor,
    userId: string,
    client: ClientInfo,
  ): Promise<{ reset_url: string; expires_at: string }> {
    return this.dataSource.transaction(async (manager) => {
      const actorRole = await lockCurrentRole(
        manager,
        actor.merchantId,
        actor.userId,
        'team:write',
      );
      const targets: Array<{ role: ConsoleRole; email: string; teams: string }> =
        await manager.query(
          `SELECT m.role, u.email,
                  (SELECT count(*) FROM console_memberships o WHERE o.user_id = u.id) AS teams
             FROM console_memberships m JOIN console_users u ON u.id = m.user_id
            WHERE m.merchant_id = $1 AND m.user_id = $2 FOR SHARE OF m`,
          [actor.merchantId, userId],
        );
      const target = targets[0];
      if (!target) {
        throw new ApiException(
          ErrorCode.ResourceMissing,
          `No member '${userId}' in this team.`,
          'userId',
        );
      }
      assertMayTouch(actorRole, target.role);
      if (Number(target.teams) > 1) {
        throw new ApiException(
          ErrorCode.InvalidState,
          'This account is also a member of another team: ask the service operator for its reset link.',
        );
      }
      const issued = await issuePasswordReset(manager, this.config, {
        userId,
        realm: 'merchant',
        issuedByUserId: actor.userId,
      });
      await recordAudit(manager, {
        merchantId: actor.merchantId,
        actorType: 'console_user',
        actorId: actor.userId,
        action: 'user.password_reset_issued',
        targetType: 'console_user',
        targetId: userId,
        details: { email: target.email, role: target.role, expires_at: issued.expiresAt },
        ip: client.ip,
        userAgent: client.userAgent,
      });
      return { reset_url: issued.resetUrl, expires_at: issued.expiresAt.toISOString() };
    });
  }
}
