import { MigrationInterface, QueryRunner } from 'typeorm';
import { loadAppConfig } from '../../../common/src/config/app-config';
import { WebhookSecretBox } from '../../../events/src/signing/webhook-secret-box';

// Rows per statement: one round trip each, small enough to keep statements short.
const BATCH = 500;

interface SecretRow {
  id: string;
  secret: string;
  previous_secret: string | null;
}

/**
 * Webhook signing secrets were stored in plaintext; the service now stores them sealed with
 * AES-256-GCM under WEBHOOK_SECRETS_KEY (WebhookSecretBox, "v1:" prefix). This seals the rows
 * written before, with the key of the environment that migrates (validated like every process's:
 * required in production), so db:migrate must run with the service's WEBHOOK_SECRETS_KEY. Rows
 * already sealed are left alone, so running it again is harmless. Down opens them again.
 */
export class EncryptWebhookSecrets1765400000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    const box = secretBox();
    await this.rewrite(
      queryRunner,
      `secret NOT LIKE 'v1:%' OR previous_secret NOT LIKE 'v1:%'`,
      (row) => ({
        secret: sealed(box, row.secret, row.id),
        previous: row.previous_secret === null ? null : sealed(box, row.previous_secret, row.id),
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const box = secretBox();
    await this.rewrite(queryRunner, `secret LIKE 'v1:%' OR previous_secret LIKE 'v1:%'`, (row) => ({
      secret: box.open(row.secret, row.id),
      previous: row.previous_secret === null ? null : box.open(row.previous_secret, row.id),
    }));
  }

  /** Rewrites the secrets of every row matching `condition`, in id order, a batch at a time. */
  private async rewrite(
    queryRunner: QueryRunner,
    condition: string,
    change: (row: SecretRow) => { secret: string; previous: string | null },
  ): Promise<void> {
    let after = '';
    for (;;) {
      const rows: SecretRow[] = await queryRunner.query(
        `SELECT id, secret, previous_secret FROM webhook_endpoints
          WHERE id > $1 AND (${condition}) ORDER BY id LIMIT ${BATCH} FOR UPDATE`,
        [after],
      );
      if (rows.length === 0) return;
      const changed = rows.map(change);
      await queryRunner.query(
        `UPDATE webhook_endpoints w SET secret = c.secret, previous_secret = c.previous
           FROM unnest($1::text[], $2::text[], $3::text[]) AS c (id, secret, previous)
          WHERE w.id = c.id`,
        [
          rows.map((row) => row.id),
          changed.map((value) => value.secret),
          changed.map((value) => value.previous),
        ],
      );
      after = rows[rows.length - 1].id;
    }
  }
}

function secretBox(): WebhookSecretBox {
  return new WebhookSecretBox(loadAppConfig(process.env).webhooks.secretsKey);
}

function sealed(box: WebhookSecretBox, value: string, endpointId: string): string {
  return value.startsWith('v1:') ? value : box.seal(value, endpointId);
}
