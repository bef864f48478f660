import { HDNodeWallet } from 'ethers';
import { EVM_ACCOUNT_PATH } from '@app/chains';
import { environment, target } from '../kit/settings';

/** The database, Redis and environment of `npm run bench:treasury`. */

// Every Redis database is someone's: 1 is the tests' last slot, taken only when twelve test runs
// share the host.
export const TARGET = target('payments_bench_treasury', 1);

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

/** The CLI's environment: this benchmark's database and Redis, sandbox, the test xpub. */
export function benchEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return environment(TARGET, { HD_EVM_XPUB, ...extra });
}
