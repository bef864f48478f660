import type { NetworkConfig } from '../../networks/network.types';

/** The fields of a raw `eth_getTransactionReceipt` answer that the fee is made of. */
interface RawReceiptFee {
  blockHash?: unknown;
  type?: unknown;
  gasUsed?: unknown;
  effectiveGasPrice?: unknown;
  l1Fee?: unknown;
  operatorFeeScalar?: unknown;
  operatorFeeConstant?: unknown;
}

/** What of a network the fee of its receipts depends on (NetworkConfig.opStack). */
export type ReceiptFeeNetwork = Pick<NetworkConfig, 'opStack'>;

const QUANTITY = /^0x[0-9a-fA-F]+$/;
/** An OP-stack deposit transaction (minted from L1): it pays no L1 data fee, and has no l1Fee. */
const OP_DEPOSIT_TYPE = '0x7e';

/**
 * What a mined transaction cost its sender, in wei, from the node's raw receipt JSON:
 * `gasUsed × effectiveGasPrice`, plus on an OP-stack network (`opStack`: Base, Optimism) the L1
 * data fee `l1Fee`, which ethers' receipt drops. Reverted transactions pay too. Null when the
 * receipt lacks a field it needs (a node that is not the chain's, or a pre-London one): nothing
 * is guessed. On an OP-stack network that includes `l1Fee` (review r9b, M3): every transaction
 * but a deposit pays it, and a node answering it absent or null (a node of another client or
 * version, a proxy that strips fields) would have the fee booked without it, too low.
 */
export function receiptFeeWei(raw: unknown, network: ReceiptFeeNetwork): bigint | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const { type, gasUsed, effectiveGasPrice, l1Fee } = raw as RawReceiptFee;
  const used = quantity(gasUsed);
  const price = quantity(effectiveGasPrice);
  if (used === null || price === null) return null;
  const dataFee = l1DataFeeWei(l1Fee, network.opStack === true && !isDeposit(type));
  if (dataFee === null) return null;
  if (opStackFeeGap(raw, network) !== null) return null;
  return used * price + dataFee;
}

/**
 * Why an OP-stack receipt tells no fee although it has its gas: `l1Fee` absent, null or
 * malformed, or an operator fee charged. Null where nothing of the kind is missing (an L1
 * network, an OP deposit, a whole receipt). Such an answer is a node's (another client or
 * version, a proxy that strips fields): another RPC URL may answer whole (ReceiptFeeUnknown).
 *
 * The Isthmus operator fee (`operatorFeeScalar`, `operatorFeeConstant`; 0 on Base and OP
 * Mainnet so far) is not computed: its formula changed between forks (Isthmus
 * gasUsed x scalar / 1e6 + constant, Jovian gasUsed x scalar x 100 + constant), and a receipt
 * does not say which applies. Nonzero or malformed, the receipt tells no fee; 0 or absent counts
 * nothing (review r9b, L2).
 */
export function opStackFeeGap(raw: unknown, network: ReceiptFeeNetwork): string | null {
  if (network.opStack !== true || typeof raw !== 'object' || raw === null) return null;
  const { type, l1Fee, operatorFeeScalar, operatorFeeConstant } = raw as RawReceiptFee;
  if (isDeposit(type)) return null;
  if (l1DataFeeWei(l1Fee, true) === null) return 'no valid l1Fee (the OP-stack L1 data fee)';
  for (const field of [operatorFeeScalar, operatorFeeConstant]) {
    if (field === undefined || field === null) continue;
    const value = quantity(field);
    if (value !== 0n) return 'an operator fee (operatorFeeScalar or operatorFeeConstant not 0)';
  }
  return null;
}

/** The receipt's block hash, lowercase, or null. */
export function receiptBlockHash(raw: unknown): string | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const { blockHash } = raw as RawReceiptFee;
  return typeof blockHash === 'string' ? blockHash.toLowerCase() : null;
}

/**
 * `l1Fee` as wei. Where it is owed, absent or null is no fee known (null); elsewhere (an L1
 * chain, an OP deposit) absent or null is 0. Malformed is null everywhere.
 */
function l1DataFeeWei(l1Fee: unknown, owed: boolean): bigint | null {
  if (l1Fee === undefined || l1Fee === null) return owed ? null : 0n;
  return quantity(l1Fee);
}

function isDeposit(type: unknown): boolean {
  return typeof type === 'string' && type.toLowerCase() === OP_DEPOSIT_TYPE;
}

function quantity(value: unknown): bigint | null {
  return typeof value === 'string' && QUANTITY.test(value) ? BigInt(value) : null;
}
