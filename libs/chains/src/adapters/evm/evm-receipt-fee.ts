/** The fields of a raw `eth_getTransactionReceipt` answer that the fee is made of. */
interface RawReceiptFee {
  blockHash?: unknown;
  gasUsed?: unknown;
  effectiveGasPrice?: unknown;
  l1Fee?: unknown;
}

const QUANTITY = /^0x[0-9a-fA-F]+$/;

/**
 * What a mined transaction cost its sender, in wei, from the node's raw receipt JSON:
 * `gasUsed × effectiveGasPrice`, plus the L1 data fee of OP-stack chains (`l1Fee`, Optimism and
 * Base), which ethers' receipt drops. Reverted transactions pay too. Null when the receipt lacks
 * a field it needs (a node that is not the chain's, or a pre-London one): nothing is guessed.
 */
export function receiptFeeWei(raw: unknown): bigint | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const { gasUsed, effectiveGasPrice, l1Fee } = raw as RawReceiptFee;
  const used = quantity(gasUsed);
  const price = quantity(effectiveGasPrice);
  if (used === null || price === null) return null;
  // Absent on L1 chains and on OP-stack deposit transactions; present and null on some nodes.
  const dataFee = l1Fee === undefined || l1Fee === null ? 0n : quantity(l1Fee);
  if (dataFee === null) return null;
  return used * price + dataFee;
}

/** The receipt's block hash, lowercase, or null. */
export function receiptBlockHash(raw: unknown): string | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const { blockHash } = raw as RawReceiptFee;
  return typeof blockHash === 'string' ? blockHash.toLowerCase() : null;
}

function quantity(value: unknown): bigint | null {
  return typeof value === 'string' && QUANTITY.test(value) ? BigInt(value) : null;
}
