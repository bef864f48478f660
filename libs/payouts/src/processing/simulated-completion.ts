import { LedgerEntry } from '@app/ledger';
import { completionEntry } from '../payout-ledger';
import { PayoutRecord } from '../payout.types';

/**
 * The worker's completion entry (same reference: a payout completes once), with the net leaving
 * `simulated:` (the sandbox helpers' asset account, see docs/sandbox.md) instead of the hot wallet:
 * no token left it, and reconciliation compares the hot wallet's books with the chain. Its kind stays
 * `payout`, so the merchant's statement shows a payout. Used by the payout test helpers and by the
 * worker for a refund's payout that simulated money funds.
 */
export function simulatedCompletionEntry(payout: PayoutRecord): LedgerEntry {
  const entry = completionEntry(payout);
  return {
    ...entry,
    lines: entry.lines.map((line) =>
      line.account.startsWith('hot_wallet:')
        ? { ...line, account: `simulated:${payout.network}:${payout.currency}` }
        : line,
    ),
  };
}
