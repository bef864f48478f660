import { TronResponseError } from './tron-errors';

/**
 * What a mined TRON transaction cost its sender, in sun, from gettransactioninfobyid: `fee` is the
 * total (TRX burnt for energy and bandwidth, activation of a new account, a memo's fee). java-tron
 * leaves zero fields out, so a transaction paid entirely with staked or delegated resources has
 * no `fee` at all: 0.
 */
export function parseTransactionFeeSun(info: unknown): bigint {
  if (typeof info !== 'object' || info === null || Array.isArray(info)) {
    throw new TronResponseError('malformed response: transaction info is not an object');
  }
  const { fee = 0 } = info as { fee?: unknown };
  if (typeof fee !== 'number' || !Number.isSafeInteger(fee) || fee < 0) {
    throw new TronResponseError('malformed response: transaction info fee');
  }
  return BigInt(fee);
}
