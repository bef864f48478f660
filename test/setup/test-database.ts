/**
 * The database and Redis database of this Jest worker, recreated from migrations and emptied at
 * the run's start. Global setup takes a free slot per worker (see run-slot.ts) and exports their
 * URLs in the environment, so two workers or two runs on one host never share them;
 * TEST_DATABASE_URL and TEST_REDIS_URL set by hand win (and then every worker shares them).
 */
const ofThisWorker = (list: string | undefined): string | undefined => {
  const urls = list?.split(' ').filter(Boolean) ?? [];
  if (urls.length === 0) return undefined;
  // JEST_WORKER_ID counts from 1 (also in band); processes a suite spawns inherit the choice.
  return urls[(Number(process.env.JEST_WORKER_ID ?? 1) - 1) % urls.length];
};

export const testDatabaseUrl = (): string =>
  process.env.TEST_DATABASE_URL ??
  ofThisWorker(process.env.TEST_WORKER_DATABASE_URLS) ??
  'postgres://postgres@127.0.0.1:5432/payments_test';
export const testRedisUrl = (): string =>
  process.env.TEST_REDIS_URL ??
  ofThisWorker(process.env.TEST_WORKER_REDIS_URLS) ??
  'redis://127.0.0.1:6379/15';

// Read when a suite loads, after global setup has chosen the run's slot.
export const TEST_DATABASE_URL = testDatabaseUrl();
export const TEST_REDIS_URL = testRedisUrl();

// Public test vectors (the well-known "abandon ... about" mnemonic): safe to commit, never funds.
// Not anvil's "test ... junk" mnemonic: its accounts are the devnet's funded payer and hot wallet,
// so pay addresses derived from it would receive the devnet's own funding transfers.
export const TEST_HD_EVM_XPUB =
  'xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYM3PwnATt';
export const TEST_HD_TRON_XPUB =
  'xpub6D1AabNHCupeiLM65ZR9UStMhJ1vCpyV4XbZdyhMZBiJXALQtmn9p42VTQckoHVn8WNqS7dqnJokZHAHcHGoaQgmv8D45oNUKx6DZMNZBCd';
