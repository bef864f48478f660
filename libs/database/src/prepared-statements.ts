import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { throwIfConnectionLost } from './lost-connections';

const statementNames = new Map<string, string>();

/** The same text always gets the same name, as PostgreSQL requires. */
function nameOf(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `stmt_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * One named prepared statement in the caller's transaction, on its connection (TypeORM's query()
 * cannot name statements). For hot paths that run the same few statements on every request: a
 * payout's creation spent about as much PostgreSQL CPU planning its statements as running them.
 * Name the columns a statement returns (no `RETURNING *`, no `SELECT *`): a prepared statement
 * whose result columns change under it (a migration adding one) fails until the connection ends.
 */
export async function queryPrepared<T>(
  manager: EntityManager,
  text: string,
  values: unknown[],
): Promise<T[]> {
  const runner = manager.queryRunner;
  throwIfConnectionLost(runner);
  if (runner?.isReleased) {
    // A transaction's manager outliving its transaction (a callback kept past its commit or
    // rollback): running on the pool would apply a money statement outside the transaction that
    // was meant to make it atomic with the rest (review r6, L5). Fail loudly instead.
    throw new Error('queryPrepared: the transaction of this EntityManager has already ended');
  }
  if (!runner) {
    const pool = (manager.connection.driver as PostgresDriver).master as Pool;
    return (await pool.query({ name: nameOf(text), text, values })).rows as T[];
  }
  const client = (await runner.connect()) as Pick<Pool, 'query'>;
  return (await client.query({ name: nameOf(text), text, values })).rows as T[];
}

/**
 * Runs hot-path SQL as named prepared statements on TypeORM's own connection pool: PostgreSQL
 * parses and plans each statement once per connection instead of on every request (TypeORM's
 * query() cannot name statements). One statement per call, no transaction: use it only for writes
 * that are complete in a single statement.
 */
@Injectable()
export class PreparedStatements {
  constructor(private readonly dataSource: DataSource) {}

  async query<T>(text: string, values: unknown[]): Promise<T[]> {
    const pool = (this.dataSource.driver as PostgresDriver).master as Pool;
    const result = await pool.query({ name: nameOf(text), text, values });
    return result.rows as T[];
  }
}
