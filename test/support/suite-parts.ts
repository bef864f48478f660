/**
 * What a suite helper (useChainSuite, useTronSuite, useSweepSuite) returns before its beforeAll
 * has run: one getter a part, reading the part's variable when a test reads it. A part not started
 * (or not asked for) throws, naming the helper and the part.
 */
export function startedParts<T extends object>(
  helper: string,
  read: { [K in keyof T]: () => T[K] | undefined },
): T {
  const parts = {} as T;
  for (const name of Object.keys(read) as Array<keyof T & string>) {
    Object.defineProperty(parts, name, {
      enumerable: true,
      get: () => {
        const value = read[name]();
        if (value === undefined)
          throw new Error(`${helper}: no ${name} (not started, or not asked for)`);
        return value;
      },
    });
  }
  return parts;
}
