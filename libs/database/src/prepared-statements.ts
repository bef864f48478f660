import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * Runs hot-path SQL as named prepared statements on TypeORM's own connection pool: PostgreSQL
 * parses and plans each statement once per connection instead of on every request (TypeORM's
 * query() cannot name statements). One statement per call, no transaction: use it only for writes
 * that are complete in a single statement.
 */
@Injectable()
export class PreparedStatements {
  private readonly names = new Map<string, string>();

  constructor(private readonly dataSource: DataSource) {}

  async query<T>(text: string, values: unknown[]): Promise<T[]> {
    const pool = (this.dataSource.driver as PostgresDriver).master as Pool;
    const result = await pool.query({ name: this.nameOf(text), text, values });
    return result.rows as T[];
  }

  /** The same text always gets the same name, as PostgreSQL requires. */
  private nameOf(text: string): string {
    let name = this.names.get(text);
    if (!name) {
      name = `stmt_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
      this.names.set(text, name);
    }
    return name;
  }
}
