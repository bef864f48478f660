import { getAddress } from 'ethers';
import { SWEEP_DELEGATE_INTERFACE } from '../contracts/contract-artifacts';

/** What a receipt log needs to carry (ethers' Log has it). */
export interface SweepReceiptLog {
  address: string;
  topics: readonly string[];
  data: string;
  index: number;
}

export interface SweptAccount {
  account: string;
  token: string;
  destination: string;
  amount: bigint;
  logIndex: number;
}

export interface UnsweptAccount {
  account: string;
  token: string;
  logIndex: number;
}

export interface DecodedSweepReceipt {
  swept: SweptAccount[];
  /** The account's sweep reverted, e.g. the token froze the address. */
  failed: UnsweptAccount[];
  /** The account did not delegate to the delegate, so nothing was tried. */
  skipped: UnsweptAccount[];
}

const SWEPT = SWEEP_DELEGATE_INTERFACE.getEvent('Swept')!;
const SWEEP_FAILED = SWEEP_DELEGATE_INTERFACE.getEvent('SweepFailed')!;
const SWEEP_SKIPPED = SWEEP_DELEGATE_INTERFACE.getEvent('SweepSkipped')!;

/**
 * What a mined sweep batch did, from the events of the delegate's own address only: a token or a
 * swept account (which runs the delegate's code too) cannot forge a Swept event from there.
 * The books take the amounts from here, never from what the batch asked for.
 */
export function decodeSweepReceipt(
  logs: readonly SweepReceiptLog[],
  delegate: string,
): DecodedSweepReceipt {
  const delegateAddress = getAddress(delegate);
  const decoded: DecodedSweepReceipt = { swept: [], failed: [], skipped: [] };
  for (const log of logs) {
    if (getAddress(log.address) !== delegateAddress) continue;
    const topic = log.topics[0];
    if (topic === SWEPT.topicHash) {
      const event = SWEEP_DELEGATE_INTERFACE.decodeEventLog(SWEPT, log.data, log.topics);
      decoded.swept.push({
        account: getAddress(event.account as string),
        token: getAddress(event.token as string),
        destination: getAddress(event.destination as string),
        amount: event.amount as bigint,
        logIndex: log.index,
      });
    } else if (topic === SWEEP_FAILED.topicHash || topic === SWEEP_SKIPPED.topicHash) {
      const fragment = topic === SWEEP_FAILED.topicHash ? SWEEP_FAILED : SWEEP_SKIPPED;
      const event = SWEEP_DELEGATE_INTERFACE.decodeEventLog(fragment, log.data, log.topics);
      const entry = {
        account: getAddress(event.account as string),
        token: getAddress(event.token as string),
        logIndex: log.index,
      };
      (fragment === SWEEP_FAILED ? decoded.failed : decoded.skipped).push(entry);
    }
  }
  return decoded;
}
