import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ID_PREFIX, newId } from '@app/common';
import { recordAudit } from '../../audit/audit-log';
import { ClientInfo } from '../../sessions/console-sessions.repository';
import { OperatorSession } from '../access/operator-sessions';
import { OpsMerchantsReader } from '../merchants/ops-merchants.reader';

export const DEFAULT_VIEW_MINUTES = 15;

interface GrantRow {
  id: string;
  merchant_id: string;
  reason: string;
  expires_at: Date;
}

/**
 * "View as merchant" (docs/operators.md): a grant ties one operator session to one merchant for
 * at most an hour; the session guards then read as that merchant's viewer and refuse every
 * write. Starting and ending are written to both audit logs: the operator's (merchant_id null)
 * and the merchant's, so its team sees who looked, when and why.
 */
@Injectable()
export class ViewGrants {
  constructor(
    private readonly dataSource: DataSource,
    private readonly merchants: OpsMerchantsReader,
  ) {}

  async start(
    operator: OperatorSession,
    input: { merchantId: string; reason: string; minutes: number },
    client: ClientInfo,
  ) {
    await this.merchants.mustExist(input.merchantId);
    return this.dataSource.transaction(async (manager) => {
      // One view at a time per session: a new one ends the previous (audited as ended).
      await this.endLive(manager, operator, client, 'replaced');
      const [grant]: GrantRow[] = await manager.query(
        `INSERT INTO operator_view_grants
           (id, operator_user_id, session_id_hash, merchant_id, reason, expires_at)
         VALUES ($1, $2, $3, $4, $5, now() + make_interval(mins => $6))
         RETURNING id, merchant_id, reason, expires_at`,
        [
          newId(ID_PREFIX.operatorViewGrant),
          operator.userId,
          operator.idHash,
          input.merchantId,
          input.reason,
          input.minutes,
        ],
      );
      const details = {
        grant_id: grant.id,
        operator_email: operator.email,
        viewed_merchant_id: grant.merchant_id,
        reason: grant.reason,
        expires_at: grant.expires_at.toISOString(),
      };
      await this.auditBoth(manager, operator, client, 'view_as.started', grant, details);
      return toView(grant);
    });
  }

  /** Ends the session's live view; false when there was none (expired or never started). */
  async end(operator: OperatorSession, client: ClientInfo): Promise<boolean> {
    return this.dataSource.transaction((manager) =>
      this.endLive(manager, operator, client, 'ended'),
    );
  }

  private async endLive(
    manager: EntityManager,
    operator: OperatorSession,
    client: ClientInfo,
    how: 'ended' | 'replaced',
  ): Promise<boolean> {
    const ended = (await manager.query(
      `WITH ended AS (
         UPDATE operator_view_grants SET ended_at = now()
          WHERE session_id_hash = $1 AND ended_at IS NULL AND expires_at > now()
          RETURNING id, merchant_id, reason, expires_at)
       SELECT * FROM ended`,
      [operator.idHash],
    )) as GrantRow[];
    for (const grant of ended) {
      const details = {
        grant_id: grant.id,
        operator_email: operator.email,
        viewed_merchant_id: grant.merchant_id,
        how,
      };
      await this.auditBoth(manager, operator, client, 'view_as.ended', grant, details);
    }
    return ended.length > 0;
  }

  private async auditBoth(
    manager: EntityManager,
    operator: OperatorSession,
    client: ClientInfo,
    action: string,
    grant: GrantRow,
    details: Record<string, unknown>,
  ): Promise<void> {
    for (const merchantId of [null, grant.merchant_id]) {
      await recordAudit(manager, {
        merchantId,
        actorType: 'operator',
        actorId: operator.userId,
        action,
        targetType: 'view_grant',
        targetId: grant.id,
        details,
        ip: client.ip,
        userAgent: client.userAgent,
      });
    }
  }
}

function toView(grant: GrantRow) {
  return {
    id: grant.id,
    merchant_id: grant.merchant_id,
    reason: grant.reason,
    expires_at: grant.expires_at.toISOString(),
  };
}
