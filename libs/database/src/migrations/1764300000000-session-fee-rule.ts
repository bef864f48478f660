import { MigrationInterface, QueryRunner } from 'typeorm';

/*
 * The fee rule on each session, fixed when it is created, so that settling it again later (a
 * top-up, a reorg, a late payment) never re-prices it with a rule changed since. Same types and
 * bounds as the merchant's rule (merchants.fee_percent / fee_fixed).
 *
 * Backfill: a session takes its merchant's rule, part by part, where the merchant has one, and the
 * configured default (FEE_PERCENT / FEE_FIXED) for the parts it has not: the rule settlement used
 * until now. SQL cannot see the configuration, so the default is read from this process's
 * environment with the defaults the configuration had when this migration was written (1 and 0;
 * fixed here, so a later change of the config default never changes what this migration did). Run
 * it with the service's environment (`npm run cli -- db:migrate` does). A rule changed before this
 * migration cannot be recovered: nothing recorded it. The columns end NOT NULL without a default,
 * so a session inserted without a rule fails instead of silently taking a stale one.
 */

// The same formats the configuration accepts (libs/common/src/config/chain-variables.ts).
const FEE_PERCENT_FORMAT = /^(0|[1-9][0-9]?)(\.[0-9]{1,4})?$/;
const FEE_FIXED_FORMAT = /^(0|[1-9][0-9]{0,11})(\.[0-9]{1,6})?$/;

function configuredDefault(name: string, fallback: string, format: RegExp): string {
  // An empty variable is unset, as the configuration reads it.
  const value = process.env[name] || fallback;
  if (!format.test(value)) {
    throw new Error(`${name} is not a valid fee (${JSON.stringify(value)}); fix it, then migrate.`);
  }
  return value;
}

export class SessionFeeRule1764300000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    // Validated above against a strict decimal format, so safe as literals (DDL takes no parameters).
    const percent = configuredDefault('FEE_PERCENT', '1', FEE_PERCENT_FORMAT);
    const fixed = configuredDefault('FEE_FIXED', '0', FEE_FIXED_FORMAT);
    // A constant default fills existing rows without rewriting the table.
    await queryRunner.query(`
      ALTER TABLE checkout_sessions
        ADD COLUMN fee_percent numeric(7, 4) NOT NULL DEFAULT '${percent}'
          CHECK (fee_percent >= 0 AND fee_percent < 100),
        ADD COLUMN fee_fixed numeric(38, 18) NOT NULL DEFAULT '${fixed}'
          CHECK (fee_fixed >= 0)`);
    // Only the sessions of merchants with their own rule are rewritten.
    await queryRunner.query(`
      UPDATE checkout_sessions s
         SET fee_percent = COALESCE(m.fee_percent, s.fee_percent),
             fee_fixed = COALESCE(m.fee_fixed, s.fee_fixed)
        FROM merchants m
       WHERE m.id = s.merchant_id AND (m.fee_percent IS NOT NULL OR m.fee_fixed IS NOT NULL)`);
    await queryRunner.query(`
      ALTER TABLE checkout_sessions
        ALTER COLUMN fee_percent DROP DEFAULT,
        ALTER COLUMN fee_fixed DROP DEFAULT`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Settlement before this migration reads the merchant's current rule again.
    await queryRunner.query(
      `ALTER TABLE checkout_sessions DROP COLUMN fee_percent, DROP COLUMN fee_fixed`,
    );
  }
}
