import { DataSource } from 'typeorm';

/** What a lock attempt gave: the work's result, or `locked` when another session held the key. */
export type LockedRun<T> = { ran: true; value: T } | { ran: false };

/**
 * Runs `work` holding a session-level advisory lock on `key`, across every process that uses the
 * same key. The lock lives on a connection of its own, so a process that dies frees it with its
 * connection, and `work` keeps using ordinary pooled connections (its transactions are not held
 * open by the lock). `wait` blocks until the lock is free (a CLI run); otherwise the run is
 * skipped at once when another session holds it (a worker's scheduled pass).
 */
export async function whileAdvisoryLocked<T>(
  dataSource: DataSource,
  key: string,
  wait: boolean,
  work: () => Promise<T>,
): Promise<LockedRun<T>> {
  const runner = dataSource.createQueryRunner();
  try {
    await runner.connect();
    if (wait) {
      // The wait is not a statement that hangs: the pool's statement_timeout would cancel it
      // after a few seconds while another pass runs. Back to the session's default after.
      await runner.query(`SET statement_timeout = 0`);
      try {
        await runner.query(`SELECT pg_advisory_lock(hashtext($1))`, [key]);
      } finally {
        await runner.query(`RESET statement_timeout`);
      }
    } else {
      const [{ locked }]: Array<{ locked: boolean }> = await runner.query(
        `SELECT pg_try_advisory_lock(hashtext($1)) AS locked`,
        [key],
      );
      if (!locked) return { ran: false };
    }
    try {
      return { ran: true, value: await work() };
    } finally {
      await runner.query(`SELECT pg_advisory_unlock(hashtext($1))`, [key]);
    }
  } finally {
    await runner.release();
  }
}
