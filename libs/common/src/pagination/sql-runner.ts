/** Anything that runs SQL with bound parameters (TypeORM's DataSource). */
export interface SqlRunner {
  query(sql: string, parameters: unknown[]): Promise<unknown>;
}
