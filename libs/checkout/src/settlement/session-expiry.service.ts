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

  /**
   * Settles every due session, a batch per transaction, until none is left or `budgetMs` is spent
   * (the next run goes on). Creation runs at over 1,000 sessions a second, so expiry must keep that
   * pace: batches of 1,000 settle in a few statements each (settleMany).
   */
  async expireDue({ batchSize = 1000, budgetMs = 4000 } = {}): Promise<number> {
    const deadline = Date.now() + budgetMs;
    let settled = 0;
    for (;;) {
      const batch = await this.expireBatch(batchSize);
      settled += batch;
      if (batch < batchSize || Date.now() >= deadline) return settled;
    }
  }

  private async expireBatch(limit: number): Promise<number> {
    // Another worker's batch is skipped, not waited for: both drain the same backlog.
    return this.dataSource.transaction(async (manager) => {
      const due: Array<{ id: string }> = await manager.query(
        `SELECT id FROM checkout_sessions WHERE status = 'Pending' AND expires_at <= now()
          ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit],
      );
      if (!due.length) return 0;
      await this.settlement.settleMany(manager, new Map(due.map(({ id }) => [id, []])));
      return due.length;
    });
  }
}
