import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Events (an outbox written in the transaction of every status change), webhook endpoints, one
 * delivery per event and endpoint (the worker's queue), and every attempt at it (the log a
 * merchant reads when deliveries stop).
 */
export class EventsAndWebhooks1764200000000 implements MigrationInterface {
  name = 'EventsAndWebhooks1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE events (
        id                 text PRIMARY KEY,
        merchant_id        text NOT NULL REFERENCES merchants (id),
        sub_merchant_id    text REFERENCES sub_merchants (id),
        sub_merchant_code  text,
        livemode           boolean NOT NULL,
        type               text NOT NULL,
        object_type        text NOT NULL,
        object_id          text NOT NULL,
        sequence           integer NOT NULL CHECK (sequence > 0),
        previous_status    text,
        -- json, not jsonb: the object keeps its field order, as the API returns it.
        data               json NOT NULL,
        created_at         timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    // Also the next sequence number of an object (max + 1) and the object id filter.
    await queryRunner.query(
      `CREATE UNIQUE INDEX events_object_sequence_idx ON events (object_id, sequence)`,
    );
    await queryRunner.query(
      `CREATE INDEX events_merchant_created_idx ON events (merchant_id, created_at DESC, id DESC)`,
    );

    await queryRunner.query(`
      CREATE TABLE webhook_endpoints (
        id                          text PRIMARY KEY,
        merchant_id                 text NOT NULL REFERENCES merchants (id),
        sub_merchant_id             text REFERENCES sub_merchants (id),
        livemode                    boolean NOT NULL,
        url                         text NOT NULL,
        description                 text,
        -- NULL: every event type.
        event_types                 text[],
        enabled                     boolean NOT NULL DEFAULT true,
        disabled_reason             text,
        disabled_at                 timestamptz,
        secret                      text NOT NULL,
        previous_secret             text,
        previous_secret_expires_at  timestamptz,
        -- Set at the first failure after a success; an endpoint failing for days is disabled.
        failing_since               timestamptz,
        last_success_at             timestamptz,
        created_at                  timestamptz NOT NULL DEFAULT now(),
        updated_at                  timestamptz NOT NULL DEFAULT now(),
        deleted_at                  timestamptz
      )`);
    await queryRunner.query(
      `CREATE INDEX webhook_endpoints_merchant_idx ON webhook_endpoints (merchant_id, created_at DESC, id DESC)
         WHERE deleted_at IS NULL`,
    );

    await queryRunner.query(`
      CREATE TABLE webhook_deliveries (
        id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        event_id         text NOT NULL REFERENCES events (id),
        endpoint_id      text NOT NULL REFERENCES webhook_endpoints (id),
        status           text NOT NULL CHECK (status IN ('Pending', 'Succeeded', 'Failed', 'Canceled')),
        attempt_count    integer NOT NULL DEFAULT 0,
        -- Pending: when it is due (or, while in flight, when its lease ends); NULL while paused
        -- (endpoint disabled).
        next_attempt_at  timestamptz,
        lease_token      text,
        last_attempt_at  timestamptz,
        created_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at       timestamptz NOT NULL DEFAULT now(),
        UNIQUE (event_id, endpoint_id)
      )`);
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at)
         WHERE status = 'Pending' AND next_attempt_at IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, status, created_at)`,
    );

    await queryRunner.query(`
      CREATE TABLE webhook_attempts (
        id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        delivery_id       bigint NOT NULL REFERENCES webhook_deliveries (id),
        attempted_at      timestamptz NOT NULL,
        status_code       integer,
        latency_ms        integer NOT NULL,
        response_excerpt  text,
        error             text,
        succeeded         boolean NOT NULL
      )`);
    await queryRunner.query(
      `CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, attempted_at)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE webhook_attempts`);
    await queryRunner.query(`DROP TABLE webhook_deliveries`);
    await queryRunner.query(`DROP TABLE webhook_endpoints`);
    await queryRunner.query(`DROP TABLE events`);
  }
}
