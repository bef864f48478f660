import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ROLE_PERMISSIONS } from '@app/auth';
import { APP_CONFIG, AppConfig, ApiException, ErrorCode } from '@app/common';
import { recordAudit } from '../audit/audit-log';
import { ConsoleUsersRepository } from '../users/console-users.repository';
import { ConsoleSession, ViewAsGrant } from './console-session';
import { ClientInfo, ConsoleSessionsRepository } from './console-sessions.repository';

/** What the console shows of a session, and the merchant switcher. */
@Injectable()
export class SessionService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: ConsoleUsersRepository,
    private readonly sessions: ConsoleSessionsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async describe(session: ConsoleSession) {
    if (session.viewAs) return this.describeViewAs(session, session.viewAs);
    const memberships = await this.users.memberships(this.dataSource.manager, session.userId);
    const current = memberships.find((m) => m.merchantId === session.merchantId);
    const role = current?.role ?? null;
    return {
      user: { id: session.userId, email: session.email },
      realm: session.realm,
      merchant: current
        ? { id: current.merchantId, name: current.merchantName, kind: current.merchantKind }
        : null,
      role,
      permissions: role ? [...ROLE_PERMISSIONS[role]].sort() : [],
      memberships: memberships.map((m) => ({
        merchant_id: m.merchantId,
        merchant_name: m.merchantName,
        role: m.role,
      })),
      csrf_token: session.csrfToken,
      livemode: this.config.livemode,
      view_as: null,
    };
  }

  /** An operator viewing as a merchant: the merchant as a viewer sees it, and the banner's facts. */
  private async describeViewAs(session: ConsoleSession, viewAs: ViewAsGrant) {
    const [merchant]: Array<{ name: string; kind: 'direct' | 'psp' }> = await this.dataSource.query(
      `SELECT name, kind FROM merchants WHERE id = $1`,
      [viewAs.merchantId],
    );
    return {
      user: { id: session.userId, email: session.email },
      realm: session.realm,
      merchant: { id: viewAs.merchantId, name: merchant.name, kind: merchant.kind },
      role: 'viewer' as const,
      permissions: [...ROLE_PERMISSIONS.viewer].sort(),
      memberships: [],
      csrf_token: session.csrfToken,
      livemode: this.config.livemode,
      view_as: {
        operator_email: session.email,
        reason: viewAs.reason,
        expires_at: viewAs.expiresAt.toISOString(),
      },
    };
  }

  async switchMerchant(session: ConsoleSession, merchantId: string, client: ClientInfo) {
    await this.dataSource.transaction(async (manager) => {
      // Read again under a lock, whatever the page showed: a membership removed since (the row
      // is deleted) is no membership, and one being removed waits for this switch or wins it.
      const target = await this.users.lockMembership(manager, session.userId, merchantId);
      if (!target) {
        throw new ApiException(
          ErrorCode.ResourceMissing,
          `You are not a member of merchant '${merchantId}'.`,
          'merchant_id',
        );
      }
      await this.sessions.switchMerchant(manager, session.idHash, merchantId);
      await recordAudit(manager, {
        merchantId,
        actorType: 'console_user',
        actorId: session.userId,
        action: 'session.merchant_switched',
        details: { from_merchant_id: session.merchantId },
        ip: client.ip,
        userAgent: client.userAgent,
      });
    });
    return this.describe({ ...session, merchantId });
  }

  async signOut(session: ConsoleSession, client: ClientInfo): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await this.sessions.revoke(manager, session.userId, session.id);
      await recordAudit(manager, {
        // An operator's sign-out during a view is the operator's own business, not the merchant's.
        merchantId: session.viewAs ? null : session.merchantId,
        actorType: session.realm === 'operator' ? 'operator' : 'console_user',
        actorId: session.userId,
        action: 'user.signed_out',
        ip: client.ip,
        userAgent: client.userAgent,
      });
    });
  }
}
