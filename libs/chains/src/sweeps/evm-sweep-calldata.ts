import { getAddress, isAddress } from 'ethers';
import { SWEEP_DELEGATE_INTERFACE } from '../contracts/contract-artifacts';

/**
 * The calldata of `sweepMany(accounts, token, toTreasury)` on the sweep delegate. Each account at
 * most once: the receipt's Swept events are booked per account, and a second sweep of the same
 * address in a batch would only log a zero.
 */
export function encodeSweepMany(
  accounts: readonly string[],
  token: string,
  toTreasury: boolean,
): string {
  if (accounts.length === 0) throw new Error('A sweep batch needs at least one account.');
  const checksummed = accounts.map((account) => addressOf(account, 'account'));
  const repeated = checksummed.find((account, index) => checksummed.indexOf(account) !== index);
  if (repeated) throw new Error(`The account ${repeated} is in the sweep batch twice.`);
  return SWEEP_DELEGATE_INTERFACE.encodeFunctionData('sweepMany', [
    checksummed,
    addressOf(token, 'token'),
    toTreasury,
  ]);
}

function addressOf(value: string, what: string): string {
  if (!isAddress(value)) throw new Error(`The ${what} ${value} is not an address.`);
  return getAddress(value);
}
