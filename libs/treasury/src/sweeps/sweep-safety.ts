import { getAddress } from 'ethers';

/**
 * The EVM sweep path's safety decisions, kept pure so each is tested on its own: which block a
 * balance read proves, whose failures count toward freezing, whether a SweepDelegate is the one
 * this configuration may call, and which Swept events may be booked.
 */

/**
 * The newest block a balance read may prove emptiness at: `confirmations` deep, as deep as the
 * transfers the watcher confirms. A zero read at the unconfirmed head could come from a sibling
 * block without a late payment the watcher confirms later at or below that height.
 */
export function provenBlock(head: number, confirmations: number): number {
  return head - Math.max(confirmations, 1) + 1;
}

/**
 * The candidates a read at `block` says something about: those whose newest known transfer is at
 * or below it. Each other one waits alone; it never holds back the token's other addresses.
 */
export function readableAt<T extends { pendingBlock: number }>(
  candidates: T[],
  block: number,
): T[] {
  return candidates.filter((candidate) => candidate.pendingBlock <= block);
}

export interface ItemOutcomeForFreezing {
  address: string;
  status: 'Swept' | 'Failed' | 'Skipped';
}

/**
 * The freezing rule (docs/treasury.md): an address's failure counts only on evidence against the
 * address itself: the same mined batch swept another address of the token (the token works and
 * refuses this one), or the token's own blacklist reads true for it. When no item of a batch was
 * swept and the token names no blacklisted address (a paused token, a token-wide fault), nothing
 * counts. A swept address starts again from zero. FAILURES_BEFORE_FROZEN counted failures freeze
 * an address until `treasury:unfreeze`.
 */
export function failureCounts(
  outcomes: ItemOutcomeForFreezing[],
  blacklisted: ReadonlySet<string> = new Set(),
): { counted: string[]; reset: string[] } {
  const reset = outcomes.filter((o) => o.status === 'Swept').map((o) => o.address);
  const failed = outcomes.filter((o) => o.status === 'Failed').map((o) => o.address);
  if (reset.length) return { counted: failed, reset };
  return { counted: failed.filter((a) => blacklisted.has(a.toLowerCase())), reset };
}

/** What a deployed SweepDelegate fixed at deployment (its immutables). */
export interface DelegateImmutables {
  sweeper: string;
  hotWallet: string;
  treasury: string;
  tokens: string[];
}

/**
 * Why this delegate must not be called by this configuration (empty: it may). A deposit key signs
 * an authorization to whatever delegate the settings name; it must be the one whose immutables
 * send tokens only to our hot wallet or treasury, and only when our sweeper asks.
 */
export function delegateMismatches(
  read: DelegateImmutables | null,
  expected: {
    sweeper: string;
    hotWallet: string | null;
    treasury: string | null;
    tokens: string[];
  },
): string[] {
  if (!read) return ['the delegate has no SweepDelegate code (its immutables cannot be read)'];
  const same = (a: string | null, b: string) => a !== null && getAddress(a) === getAddress(b);
  const reasons: string[] = [];
  if (!same(expected.sweeper, read.sweeper)) reasons.push(`SWEEPER() is ${read.sweeper}`);
  if (!same(expected.hotWallet, read.hotWallet))
    reasons.push(`HOT_WALLET() is ${read.hotWallet}, not the registered hot wallet`);
  // Without a treasuryAddress no batch asks for the treasury, so TREASURY() moves nothing.
  if (expected.treasury !== null && !same(expected.treasury, read.treasury))
    reasons.push(`TREASURY() is ${read.treasury}, not treasuryAddress`);
  const whitelisted = new Set(read.tokens.map((token) => getAddress(token)));
  for (const token of expected.tokens) {
    if (!whitelisted.has(getAddress(token))) reasons.push(`token ${token} is not whitelisted`);
  }
  return reasons;
}

/** Swept events whose destination is not where the sweep was journaled to go: never booked. */
export function foreignDestinations<T extends { destination: string }>(
  swept: T[],
  destinationAddress: string,
): T[] {
  return swept.filter((item) => getAddress(item.destination) !== getAddress(destinationAddress));
}

/**
 * Why a network's sweeper key may not sign, when it is the payout hot wallet's: on EVM the two
 * nonce lanes would collide; on TRON the staking account's TRX, fees and books
 * (`staking:TRON:TRX`) would mix with the payouts' (`hot_wallet:TRON:TRX`), and reconciliation
 * counts one address at one location only. EVM addresses compare without case, TRON's exactly.
 */
export function sweeperIsHotWallet(
  family: 'EVM' | 'TRON',
  sweeper: string,
  hotWallet: string | null,
): string | null {
  if (!hotWallet) return null;
  if (family === 'EVM') {
    return sweeper.toLowerCase() === hotWallet.toLowerCase()
      ? 'the sweeper key is the hot wallet key: their nonces would collide'
      : null;
  }
  return sweeper === hotWallet
    ? `the TRON staking account (SWEEPER_KEYS_FILE) ${sweeper} is the payout hot wallet: its ` +
        "TRX and fees would mix with the payouts' books; give the payout hot wallet a new key (the " +
        'staking key may change only once no TRON sweep is live: each is finished with its own)'
    : null;
}
