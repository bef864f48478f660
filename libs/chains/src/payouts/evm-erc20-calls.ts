import { Interface } from 'ethers';
import { ChainError } from '../rpc/chain-error';
import { checkedAddress } from './evm-payout-checks';
import { TokenTransferOrder } from './payout-transport';

export const ERC20 = new Interface([
  'function transfer(address to, uint256 amount) returns (bool)',
  'function balanceOf(address owner) view returns (uint256)',
]);

const MAX_UINT256 = (1n << 256n) - 1n;

/** The call of the order's transfer(to, amount): the token contract and its calldata. */
export function transferCall(
  order: TokenTransferOrder,
  network: string,
): { to: string; data: string } {
  const to = checkedAddress(order.tokenContract, 'tokenContract', network);
  const recipient = checkedAddress(order.to, 'to', network);
  const amount = order.amountBaseUnits;
  if (amount <= 0n || amount > MAX_UINT256) {
    throw new ChainError('permanent', `amount ${amount} is not a positive uint256`, network);
  }
  return { to, data: ERC20.encodeFunctionData('transfer', [recipient, amount]) };
}
