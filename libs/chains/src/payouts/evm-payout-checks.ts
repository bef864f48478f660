import { getAddress } from 'ethers';
import { isValidAddress } from '../hd/addresses';
import { ChainError } from '../rpc/chain-error';
import { nodeErrorOf } from './evm-broadcast-errors';

// "method not found", "the method eth_maxPriorityFeePerGas does not exist/is not available".
const UNSUPPORTED_METHOD = /method .*(not found|not supported|not available|does not exist)/i;

/** The address checksummed; a permanent ChainError of `network` where it is no EVM address. */
export function checkedAddress(address: string, name: string, network: string): string {
  if (!isValidAddress('EVM', address)) {
    throw new ChainError(
      'permanent',
      `${name} ${JSON.stringify(address)} is not an EVM address`,
      network,
    );
  }
  return getAddress(address);
}

/** Whether a node's answer says it lacks the method asked for ("method not found", -32601). */
export function isUnsupportedMethod(error: unknown): boolean {
  if ((error as { code?: unknown } | null)?.code === 'UNSUPPORTED_OPERATION') return true;
  const nodeError = nodeErrorOf(error);
  return nodeError?.code === -32601 || UNSUPPORTED_METHOD.test(nodeError?.message ?? '');
}
