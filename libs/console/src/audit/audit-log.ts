import { EntityManager } from 'typeorm';
import { ID_PREFIX, newId } from '@app/common';

export type AuditActorType = 'console_user' | 'operator' | 'api_key' | 'cli' | 'anonymous';

export interface AuditEntry {
  merchantId: string | null;
  actorType: AuditActorType;
  actorId: string | null;
  /** A dotted verb, e.g. `api_key.created`, `user.signed_in`, `user.sign_in_failed`. */
  action: string;
  targetType?: string;
  targetId?: string;
  /** What a reader needs to understand the change; never a secret, a hash or a password. */
  details?: Record<string, unknown>;
  ip?: string | null;
  userAgent?: string | null;
}

/**
 * Appends to the audit log through the caller's transaction manager, so an entry exists exactly
 * when the change it describes was committed. The table refuses UPDATE, DELETE and TRUNCATE.
 */
export async function recordAudit(manager: EntityManager, entry: AuditEntry): Promise<string> {
  const id = newId(ID_PREFIX.auditEntry);
  await manager.query(
    `INSERT INTO console_audit_log
       (id, merchant_id, actor_type, actor_id, action, target_type, target_id, details, ip, user_agent)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      id,
      entry.merchantId,
      entry.actorType,
      entry.actorId,
      entry.action,
      entry.targetType ?? null,
      entry.targetId ?? null,
      JSON.stringify(entry.details ?? {}),
      entry.ip ?? null,
      entry.userAgent ?? null,
    ],
  );
  return id;
}
