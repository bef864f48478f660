/** One balance to read: a token's (its contract, registry format) or the native coin's (null). */
export interface BalanceQuery {
  address: string;
  token: string | null;
}

/** Reads many balances of one network as of one block, in base units. */
export interface ChainBalanceReader {
  /**
   * The block balances are read at: head - confirmations + 1 where the chain can read state at a
   * past block (EVM); the head on TRON, whose nodes answer the current state only.
   */
  readBlock(confirmations: number): Promise<number>;
  /** One balance per query, in the queries' order. */
  read(queries: BalanceQuery[], block: number): Promise<bigint[]>;
  close(): Promise<void>;
}

/** Runs `work` over `items` with at most `limit` at once, results in the items' order. */
export async function mapConcurrently<T, R>(
  items: T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
