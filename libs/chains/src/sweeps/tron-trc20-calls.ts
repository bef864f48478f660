import { AbiCoder } from 'ethers';

export const TRANSFER_SIGNATURE = 'transfer(address,uint256)';
export const BALANCE_OF_SIGNATURE = 'balanceOf(address)';

/** ABI-encoded parameters, lowercase hex without 0x; addresses given as 41-prefixed hex. */
export function abiEncode(types: string[], values: Array<string | bigint>): string {
  const evmValues = values.map((value) =>
    typeof value === 'string' ? `0x${value.slice(2)}` : value,
  );
  return AbiCoder.defaultAbiCoder().encode(types, evmValues).slice(2);
}
