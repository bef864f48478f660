import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiKeysService } from '@app/auth';
import { ApiException, ErrorCode } from '@app/common';
import { recordAudit } from '../../audit/audit-log';
import { ClientInfo } from '../../sessions/console-sessions.repository';
import { OperatorSession } from '../access/operator-sessions';

/**
 * An operator revokes a merchant's key (a leaked key reported to support, say). Through
 * ApiKeysService.revoke, so every API process forgets the key on commit, as when the merchant
 * revokes it; audited under the merchant, so its team sees who did it and why it stopped working,
 * and in the operators' log.
 */
@Injectable()
export class OpsKeyRevocation {
  constructor(
    private readonly dataSource: DataSource,
    private readonly apiKeys: ApiKeysService,
  ) {}

  async revoke(
    operator: OperatorSession,
    merchantId: string,
    keyId: string,
    client: ClientInfo,
  ): Promise<{ id: string; revoked: true }> {
    await this.dataSource.transaction(async (manager) => {
      const [key]: Array<{ revoked_at: Date | null }> = await manager.query(
        `SELECT revoked_at FROM api_keys WHERE id = $1 AND merchant_id = $2 FOR UPDATE`,
        [keyId, merchantId],
      );
      if (!key) throw ApiException.notFound('API key', keyId);
      if (key.revoked_at) {
        throw new ApiException(
          ErrorCode.InvalidState,
          `The API key '${keyId}' is already revoked.`,
        );
      }
      await this.apiKeys.revoke(keyId, { merchantId }, manager);
      // Both logs, as a view-as is: the merchant's (its team sees who revoked its key) and the
      // operators' own (merchant_id null), which names the merchant.
      for (const loggedUnder of [merchantId, null]) {
        await recordAudit(manager, {
          merchantId: loggedUnder,
          actorType: 'operator',
          actorId: operator.userId,
          action: 'api_key.revoked',
          targetType: 'api_key',
          targetId: keyId,
          details: { operator_email: operator.email, merchant_id: merchantId },
          ip: client.ip,
          userAgent: client.userAgent,
        });
      }
    });
    // With a manager, revoke leaves this process's cache to the caller, after the commit.
    this.apiKeys.forget(keyId);
    return { id: keyId, revoked: true };
  }
}
