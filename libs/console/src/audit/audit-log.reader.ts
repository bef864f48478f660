import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiException, ErrorCode } from '@app/common';

interface AuditRow {
  id: string;
  actor_type: string;
  actor_id: string | null;
  actor_email: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  details: Record<string, unknown>;
  ip: string | null;
  user_agent: string | null;
  created_at: Date;
}

/**
 * A merchant's audit log, newest first on (created_at DESC, id DESC) as every list of the API
 * (docs/pagination.md), paged by `starting_after` along console_audit_log_merchant_idx.
 */
@Injectable()
export class AuditLogReader {
  constructor(private readonly dataSource: DataSource) {}

  async page(merchantId: string, limit: number, startingAfter?: string) {
    const params: unknown[] = [merchantId, limit + 1];
    let after = '';
    if (startingAfter !== undefined) {
      const cursor: Array<{ created_at: string }> = await this.dataSource.query(
        `SELECT created_at::text AS created_at FROM console_audit_log
          WHERE id = $1 AND merchant_id = $2`,
        [startingAfter, merchantId],
      );
      if (!cursor[0]) {
        throw new ApiException(
          ErrorCode.ParameterInvalid,
          `No such audit log entry: '${startingAfter}'.`,
          'starting_after',
        );
      }
      params.push(cursor[0].created_at, startingAfter);
      after = `AND (a.created_at, a.id) < ($3::timestamptz, $4)`;
    }
    const rows: AuditRow[] = await this.dataSource.query(
      `SELECT a.id, a.actor_type, a.actor_id, u.email AS actor_email, a.action, a.target_type,
              a.target_id, a.details, a.ip, a.user_agent, a.created_at
         FROM console_audit_log a LEFT JOIN console_users u ON u.id = a.actor_id
        WHERE a.merchant_id = $1 ${after}
        ORDER BY a.created_at DESC, a.id DESC LIMIT $2`,
      params,
    );
    const entries = rows.slice(0, limit).map((row) => ({
      id: row.id,
      actor: { type: row.actor_type, id: row.actor_id, email: row.actor_email },
      action: row.action,
      target: row.target_type ? { type: row.target_type, id: row.target_id } : null,
      details: row.details,
      ip: row.ip,
      user_agent: row.user_agent,
      created_at: row.created_at.toISOString(),
    }));
    return { entries, nextCursor: rows.length > limit ? entries[entries.length - 1].id : null };
  }
}
