import { Logger } from '@nestjs/common';
import { ChainError } from '../../rpc/chain-error';
import { opStackFeeGap, ReceiptFeeNetwork } from './evm-receipt-fee';

/**
 * A receipt of one of the service's transactions answered without what its fee is made of on an
 * OP-stack network (opStackFeeGap: no `l1Fee`, an operator fee). Transient, so the next RPC URL
 * is asked before giving up (review r9b follow-up, M1: as permanent, no other URL was ever
 * asked): EvmRpc.callReceipt asks the URLs round again (the retries' attempts, each URL once at
 * least), without backoff, and throws it if none answers the receipt whole. `answer` is what the read gives once
 * every URL answered so: the reader's result with no fee (nothing booked on it), for a caller
 * that goes on without the fee (wholeReceiptOr).
 */
export class ReceiptFeeUnknown<T = unknown> extends ChainError {
  constructor(
    readonly txHash: string,
    network: string,
    reason: string,
    readonly answer: T,
  ) {
    super('transient', `receipt of ${txHash} tells no fee: ${reason}`, network);
    this.name = 'ReceiptFeeUnknown';
  }
}

/**
 * Inside an EvmRpc call: throws ReceiptFeeUnknown (with `answer`) where the raw receipt `raw` of
 * `txHash` lacks what its fee needs on an OP-stack network; otherwise the receipt counts as
 * answered whole (the gauge stops counting it).
 */
export function requireWholeFee<T>(
  raw: unknown,
  network: ReceiptFeeNetwork & { name: string },
  txHash: string,
  answer: T,
): void {
  const gap = opStackFeeGap(raw, network);
  if (gap !== null) throw new ReceiptFeeUnknown(txHash, network.name, gap, answer);
  receiptsWithoutFee.answered(network.name, txHash);
}

/**
 * Runs an EvmRpc call that may throw ReceiptFeeUnknown: once every attempt (every URL) answered
 * without the fee, the receipt is noted (gauge, alert) and the call's `answer` is returned, with
 * no fee in it. Any other error is thrown as it was.
 */
export async function wholeReceiptOr<T>(network: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof ReceiptFeeUnknown)) throw error;
    receiptsWithoutFee.noted(network, error.txHash, error.message);
    return error.answer as T;
  }
}

/**
 * How long the service's receipts may come without their fee before an error is logged: a node
 * answering a receipt whole seconds later is normal behind a balancer; ten minutes is a node (or
 * every URL) that never gives it, and payouts, sweeps and fees of the network wait on it.
 */
export const RECEIPT_WITHOUT_FEE_ALERT_AFTER_MS = 10 * 60_000;
/** A receipt not asked again for this long is forgotten (its payout ended, a pass stopped). */
const FORGET_AFTER_MS = 30 * 60_000;

interface Noted {
  network: string;
  since: number;
  last: number;
  alerted: boolean;
}

/**
 * The receipts of this process's reads that no RPC URL answered with their fee, by network:
 * counted by the gauge `payments_chain_receipts_without_fee` (docs/operations.md), and logged as
 * an error once one stays so past RECEIPT_WITHOUT_FEE_ALERT_AFTER_MS. In memory: what a worker
 * process has read (each worker answers its own scrape).
 */
export class ReceiptsWithoutFee {
  private readonly logger = new Logger('ReceiptsWithoutFee');
  private readonly receipts = new Map<string, Noted>();

  noted(network: string, txHash: string, reason: string, now = Date.now()): void {
    const key = `${network}:${txHash.toLowerCase()}`;
    const known = this.receipts.get(key);
    const entry =
      known && now - known.last < FORGET_AFTER_MS
        ? known
        : { network, since: now, last: now, alerted: false };
    entry.last = now;
    this.receipts.set(key, entry);
    if (entry.alerted || now - entry.since < RECEIPT_WITHOUT_FEE_ALERT_AFTER_MS) return;
    entry.alerted = true;
    this.logger.error(
      { network, txHash, since: new Date(entry.since).toISOString(), reason },
      'Receipt answered without its fee by every RPC URL for 10 minutes: the payouts, sweeps and ' +
        'fees of the network that wait on it stay as they are. Add an RPC URL whose node answers ' +
        "l1Fee, or see opStack in NETWORKS_FILE (docs/operations.md, 'Receipts without a fee')",
    );
  }

  answered(network: string, txHash: string): void {
    this.receipts.delete(`${network}:${txHash.toLowerCase()}`);
  }

  /** Per network, the receipts noted lately and not answered whole since. */
  counts(now = Date.now()): Map<string, number> {
    const counts = new Map<string, number>();
    for (const [key, entry] of this.receipts) {
      if (now - entry.last >= FORGET_AFTER_MS) {
        this.receipts.delete(key);
        continue;
      }
      counts.set(entry.network, (counts.get(entry.network) ?? 0) + 1);
    }
    return counts;
  }
}

/** The process's one register (read by the worker's gauge). */
export const receiptsWithoutFee = new ReceiptsWithoutFee();
