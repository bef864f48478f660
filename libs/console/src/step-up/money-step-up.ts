import type { Request } from 'express';
import { DataSource, EntityManager } from 'typeorm';
import { AuthenticatedMerchant } from '@app/auth';
import { ApiException, ErrorCode } from '@app/common';
import { AuditEntry, recordAudit } from '../audit/audit-log';
import { clientInfo } from '../http/client-info';
import { TwoFactorVerifier } from '../two-factor/two-factor-verifier';
import { requireFreshCode } from './fresh-code';

/** What the console's money forms audit of what they created. */
export type CreatedEntry = Required<Pick<AuditEntry, 'action' | 'targetType' | 'targetId'>> &
  Pick<AuditEntry, 'details'>;

/** A console user who passed the step-up: audits what the form created, in its transaction. */
export interface SteppedUpActor {
  audit(manager: EntityManager, entry: CreatedEntry): Promise<void>;
}

/**
 * The console's forms that send money (a payout, a batch, a refund) ask a console user, never an
 * API key, for a fresh two-factor code (sandbox too), checked first and in its own transaction
 * (fresh-code.ts). The entry of what was created is then written by the creation's own
 * transaction through `audit`: it exists exactly when the object does, and a replayed
 * idempotency key (which creates nothing) writes none.
 */
export async function stepUpToSendMoney(
  dataSource: DataSource,
  verifier: TwoFactorVerifier,
  merchant: AuthenticatedMerchant,
  request: Request,
  step: { code: string | undefined; purpose: string; objects: string },
): Promise<SteppedUpActor> {
  const actor = merchant.actor;
  if (actor.type !== 'console_user') {
    throw new ApiException(
      ErrorCode.PermissionDenied,
      `Only console users create ${step.objects} here.`,
    );
  }
  const client = clientInfo(request);
  await requireFreshCode(dataSource, verifier, {
    userId: actor.userId,
    merchantId: merchant.merchantId,
    code: step.code,
    purpose: step.purpose,
    client,
  });
  return {
    audit: async (manager, entry) => {
      await recordAudit(manager, {
        ...entry,
        merchantId: merchant.merchantId,
        actorType: actor.operatorId ? 'operator' : 'console_user',
        actorId: actor.operatorId ?? actor.userId,
        ip: client.ip,
        userAgent: client.userAgent,
      });
    },
  };
}
