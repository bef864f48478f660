export interface PaymentUriInput {
  chainFamily: 'EVM' | 'TRON';
  chainId: number;
  tokenContract: string;
  /** The token's own decimals (18 for USDT/USDC on BSC). */
  tokenDecimals: number;
  payAddress: string;
  /** Token amount, a plain decimal string such as "12.5". */
  amount: string;
}

const PLAIN_DECIMAL = /^[0-9]+(\.[0-9]+)?$/;
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const TRON_ADDRESS = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;
const MAX_DECIMALS = 36;

/**
 * What a wallet scans or opens to pay.
 *
 * EVM: an EIP-681 token transfer, `ethereum:<token>@<chainId>/transfer?address=<to>&uint256=<units>`.
 * Wallets have paid testnet links on mainnet when the chain id was missing and misread amounts
 * written with an exponent, so the chain id is always there and the amount is always a plain
 * integer of base units in the token's own decimals.
 *
 * TRON: no URI scheme is understood widely enough, so the address alone; the page shows the
 * amount beside it.
 */
export function paymentUri(input: PaymentUriInput): string {
  if (input.chainFamily === 'TRON') {
    if (!TRON_ADDRESS.test(input.payAddress)) {
      throw new TypeError(`Not a TRON address: ${JSON.stringify(input.payAddress)}.`);
    }
    return input.payAddress;
  }
  if (input.chainFamily !== 'EVM') {
    throw new TypeError(`Unknown chain family ${JSON.stringify(input.chainFamily)}.`);
  }
  if (!Number.isSafeInteger(input.chainId) || input.chainId <= 0) {
    throw new TypeError(`Not a chain id: ${String(input.chainId)}.`);
  }
  for (const [what, address] of [
    ['token contract', input.tokenContract],
    ['pay address', input.payAddress],
  ]) {
    if (!EVM_ADDRESS.test(address)) {
      throw new TypeError(`Not an EVM ${what}: ${JSON.stringify(address)}.`);
    }
  }
  const units = toBaseUnits(input.amount, input.tokenDecimals);
  return (
    `ethereum:${input.tokenContract}@${input.chainId}/transfer` +
    `?address=${input.payAddress}&uint256=${units}`
  );
}

/**
 * "12.5" with 6 decimals is 12500000: string and bigint arithmetic only, so no digit is ever lost
 * to a float and no exponent appears. More fractional digits than the token has are refused
 * unless they are zeros: such an amount cannot be paid exactly.
 */
export function toBaseUnits(amount: string, decimals: number): string {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > MAX_DECIMALS) {
    throw new RangeError(`Unsupported token decimals: ${String(decimals)}.`);
  }
  if (typeof amount !== 'string' || !PLAIN_DECIMAL.test(amount)) {
    throw new TypeError(`Not a plain decimal amount: ${JSON.stringify(amount)}.`);
  }
  const [integer, fraction = ''] = amount.split('.');
  const extra = fraction.slice(decimals);
  if (/[^0]/.test(extra)) {
    throw new RangeError(`${amount} has more than ${decimals} fractional digits.`);
  }
  const digits = integer + fraction.slice(0, decimals).padEnd(decimals, '0');
  return BigInt(digits).toString();
}
