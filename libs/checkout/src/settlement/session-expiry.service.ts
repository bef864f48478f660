import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SessionSettlementService } from './session-settlement.service';

/** Moves sessions past expires_at to Underpaid or Expired (settlement decides which). */
@Injectable()
export class SessionExpiryService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly settlement: SessionSettlementService,
  ) {}

  /** Settles up to `limit` due sessions in one set-based transaction; returns how many. */
  async expireDue(limit = 500): Promise<number> {
    const due: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id FROM checkout_sessions WHERE status = 'Pending' AND expires_at <= now()
        ORDER BY expires_at LIMIT $1`,
      [limit],
    );
    if (!due.length) return 0;
    await this.dataSource.transaction((manager) =>
      this.settlement.settleMany(manager, new Map(due.map(({ id }) => [id, []]))),
    );
    return due.length;
  }
}
