import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ROLE_PERMISSIONS } from '@app/auth';
import { APP_CONFIG, AppConfig, ApiException, ErrorCode } from '@app/common';
import { recordAudit } from '../audit/audit-log';
import { ConsoleUsersRepository } from '../users/console-users.repository';
import { ConsoleSession } from './console-session';
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
    };
  }

  async switchMerchant(session: ConsoleSession, merchantId: string, client: ClientInfo) {
    await this.dataSource.transaction(async (manager) => {
      const memberships = await this.users.memberships(manager, session.userId);
      const target = memberships.find((m) => m.merchantId === merchantId);
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
        merchantId: session.merchantId,
        actorType: session.realm === 'operator' ? 'operator' : 'console_user',
        actorId: session.userId,
        action: 'user.signed_out',
        ip: client.ip,
        userAgent: client.userAgent,
      });
    });
  }
}
