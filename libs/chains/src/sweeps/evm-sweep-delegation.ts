import { concat, getAddress, isAddress } from 'ethers';

/** EIP-7702: the code of an account that delegates is this prefix followed by the delegate. */
export const DELEGATION_DESIGNATOR_PREFIX = '0xef0100';

/** The 23 bytes of code (0xef0100 ‖ delegate) of an account that delegates to `delegate`. */
export function delegationDesignatorOf(delegate: string): string {
  return concat([DELEGATION_DESIGNATOR_PREFIX, getAddress(delegate)]).toLowerCase();
}

/**
 * Whether an account's code (eth_getCode) is exactly the designator to `delegate`. Anything
 * else, no code included, means a sweep call to it would move nothing.
 */
export function isDelegatedTo(code: string, delegate: string): boolean {
  if (!isAddress(delegate)) throw new Error(`The delegate ${delegate} is not an address.`);
  return code.toLowerCase() === delegationDesignatorOf(delegate);
}
