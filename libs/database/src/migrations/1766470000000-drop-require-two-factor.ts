import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * merchants.require_two_factor was never read: two-factor authentication is mandatory for every
 * console account (docs/console.md), so a per-merchant switch only misled whoever read the
 * schema (issue 25, review finding 14).
 */
export class DropRequireTwoFactor1766470000000 implements MigrationInterface {
  name = 'DropRequireTwoFactor1766470000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE merchants DROP COLUMN require_two_factor`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE merchants ADD COLUMN require_two_factor boolean NOT NULL DEFAULT false`,
    );
  }
}
