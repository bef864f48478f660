import { EntityManager } from 'typeorm';

/**
 * Runs an UPDATE or DELETE and returns how many rows it touched. TypeORM's postgres driver
 * answers those statements with `[rows, rowCount]` (other statements: the rows).
 */
export async function execute(
  manager: EntityManager,
  sql: string,
  params: unknown[],
): Promise<number> {
  const result: unknown = await manager.query(sql, params);
  return Array.isArray(result) && typeof result[1] === 'number' ? result[1] : 0;
}

/** The rows of an UPDATE ... RETURNING (the driver wraps them with the count). */
export async function updateReturning<T>(
  manager: EntityManager,
  sql: string,
  params: unknown[],
): Promise<T[]> {
  const result = (await manager.query(sql, params)) as [T[], number];
  return result[0];
}
