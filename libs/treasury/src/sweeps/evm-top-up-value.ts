/**
 * The gas top-up to send a deposit address before its token transfer: the transfer's whole gas
 * (gas limit x max fee) less the native coin on it that the books say is ours (what is left of
 * our earlier top-ups, and still there). Coin anyone else sent it is not counted: it is not ours
 * to spend, and counting it would let anyone stop an address from being swept by sending it a
 * little coin. Zero: our own coin covers the gas, the transfer is sent alone. Never negative.
 */
export function topUpValue(neededWei: bigint, heldWei: bigint, oursWei: bigint): bigint {
  const ours = oursWei < 0n ? 0n : oursWei;
  const usable = ours < heldWei ? ours : heldWei;
  const value = neededWei - usable;
  return value > 0n ? value : 0n;
}
