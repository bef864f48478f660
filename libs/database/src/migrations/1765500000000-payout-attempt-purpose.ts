import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a payout attempt is for. 'transfer': the payout's token transfer (every attempt so far).
 * 'cancel': a zero-value send to the hot wallet itself with the nonce of a payout stuck in
 * `Processing` (`payouts:cancel-nonce`): once mined and confirmed it proves that no transfer of
 * the payout can ever be mined, and the payout fails with its funds released, never completes.
 * Adding a column with a constant default rewrites no rows (PostgreSQL 11+).
 */
export class PayoutAttemptPurpose1765500000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE payout_attempts ADD COLUMN purpose text NOT NULL DEFAULT 'transfer'
        CONSTRAINT payout_attempts_purpose_check CHECK (purpose IN ('transfer', 'cancel'))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Without the column, the previous release would take a mined cancel of a payout still in
    // flight for its transfer and complete the payout: money recorded as sent that never left.
    const [{ count }]: Array<{ count: number }> = await queryRunner.query(
      `SELECT count(*)::int AS count FROM payout_attempts a JOIN payouts p ON p.id = a.payout_id
        WHERE a.purpose = 'cancel' AND p.status = 'Processing'`,
    );
    if (count > 0) {
      throw new Error(
        `${count} cancel attempt(s) of payouts still Processing: let the tracker finish them ` +
          '(npm run cli -- payouts:track --network NETWORK --until-idle) before reverting.',
      );
    }
    await queryRunner.query(`ALTER TABLE payout_attempts DROP COLUMN purpose`);
  }
}
