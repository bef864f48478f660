import { HDNodeWallet } from 'ethers';
import { EVM_ACCOUNT_PATH } from '@app/chains';
import { benchEnvironment as payoutsEnvironment } from '../payouts/settings';

/** Names, paths and environments of `npm run bench:treasury`. */

export { API_MAIN, CLI_MAIN, RESULTS_DIR, ROOT, WORKER_MAIN } from '../payouts/settings';

// A database and a Redis database of its own, so the other benchmarks and the tests may run at
// the same time. Every Redis database is someone's: 1 is the tests' last slot, taken only when
// twelve test runs share the host.
export const DATABASE = 'payments_bench_treasury';
export const DATABASE_URL = `postgres://postgres@127.0.0.1:5432/${DATABASE}`;
export const REDIS_URL = 'redis://127.0.0.1:6379/1';

/** Like `npm run devnet`: a block a second, a transfer's own block confirms it. */
export const BLOCK_TIME_SECONDS = 1;
export const CONFIRMATIONS = 1;

// The public "abandon ... about" test mnemonic (the tests' xpubs): the worker sweeps, so it needs
// the private side of the pay addresses' xpub, which must never be a secret of anyone's.
const TEST_MNEMONIC =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const EVM_ACCOUNT = HDNodeWallet.fromPhrase(TEST_MNEMONIC, undefined, EVM_ACCOUNT_PATH);
export const DEPOSIT_XPRV = EVM_ACCOUNT.extendedKey;
const HD_EVM_XPUB = EVM_ACCOUNT.neuter().extendedKey;

// Tuning the shell may carry (the payouts' list is removed by its own environment): the default
// configuration is measured with none of them set.
const TUNING = /^(TREASURY_.*_MS|PAY_ADDRESS_POOL_)/;

/** The CLI's environment: this benchmark's database and Redis, sandbox, public test xpubs. */
export function benchEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = payoutsEnvironment({ DATABASE_URL, REDIS_URL, HD_EVM_XPUB, ...extra });
  for (const name of Object.keys(env)) {
    if (TUNING.test(name) && !(name in extra)) delete env[name];
  }
  return env;
}
