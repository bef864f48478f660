/**
 * The retention job's statements. Each is one short transaction over at most one batch of rows,
 * so the locks it takes are few and brief whatever the backlog; a run is many of them.
 */

/** Webhook attempts (the delivery log merchants read) attempted before $1, oldest first. */
export const DELETE_OLD_WEBHOOK_ATTEMPTS = `
  WITH gone AS (
    DELETE FROM webhook_attempts WHERE id = ANY(ARRAY(
      SELECT id FROM webhook_attempts
       WHERE attempted_at < $1::timestamptz
       ORDER BY attempted_at LIMIT $2))
    RETURNING 1)
  SELECT count(*)::int AS deleted FROM gone`;

/**
 * Examines the next $4 events created before $1, after the keyset ($2, $3), and deletes those it
 * may, with their deliveries and those deliveries' attempts. Kept, whatever their age:
 *
 * - an object's latest event: the next event of the object takes max(sequence) + 1 (event-writer),
 *   and sequences must never restart for a receiver that ignores lower ones;
 * - an event with a delivery still Pending (due, retrying, or paused with its endpoint): it has
 *   not reached the merchant yet.
 *
 * The deliveries' delete re-checks their status, so a resend that made one Pending meanwhile is
 * kept, and the events' delete then fails its foreign key: the whole batch rolls back and the
 * next pass sees the Pending delivery. Foreign keys are checked at the end of the statement, so
 * attempts, deliveries and events go together.
 */
export const DELETE_OLD_EVENTS_BATCH = `
  WITH examined AS MATERIALIZED (
    SELECT e.id, e.created_at, e.object_id, e.sequence FROM events e
     WHERE e.created_at < $1::timestamptz
       AND (e.created_at, e.id) > ($2::timestamptz, $3::text)
     ORDER BY e.created_at, e.id
     LIMIT $4),
  doomed AS MATERIALIZED (
    SELECT x.id FROM examined x
     WHERE EXISTS (SELECT 1 FROM events n
                    WHERE n.object_id = x.object_id AND n.sequence > x.sequence)
       AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
                        WHERE d.event_id = x.id AND d.status = 'Pending')),
  deliveries AS MATERIALIZED (
    SELECT d.id FROM webhook_deliveries d WHERE d.event_id IN (SELECT id FROM doomed)),
  gone_attempts AS (
    DELETE FROM webhook_attempts a WHERE a.delivery_id IN (SELECT id FROM deliveries)
    RETURNING 1),
  gone_deliveries AS (
    DELETE FROM webhook_deliveries d
     WHERE d.id IN (SELECT id FROM deliveries) AND d.status <> 'Pending'
    RETURNING 1),
  gone_events AS (
    DELETE FROM events e WHERE e.id IN (SELECT id FROM doomed)
    RETURNING 1),
  last AS (
    SELECT created_at, id FROM examined ORDER BY created_at DESC, id DESC LIMIT 1)
  SELECT (SELECT count(*) FROM examined)::int AS examined,
         (SELECT created_at::text FROM last) AS last_created_at,
         (SELECT id FROM last) AS last_id,
         (SELECT count(*) FROM gone_events)::int AS events,
         (SELECT count(*) FROM gone_deliveries)::int AS deliveries,
         (SELECT count(*) FROM gone_attempts)::int AS attempts`;

/** Where the last events pass stopped; none: from the oldest event. */
export const READ_CURSOR = `SELECT created_at::text AS created_at, id FROM retention_cursors WHERE name = $1`;

export const SAVE_CURSOR = `
  INSERT INTO retention_cursors (name, created_at, id) VALUES ($1, $2::timestamptz, $3)
  ON CONFLICT (name) DO UPDATE
    SET created_at = EXCLUDED.created_at, id = EXCLUDED.id, updated_at = now()`;

export const CLEAR_CURSOR = `DELETE FROM retention_cursors WHERE name = $1`;
