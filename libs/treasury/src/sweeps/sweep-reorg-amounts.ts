import { Logger } from '@nestjs/common';
import { Transaction } from 'ethers';
import { EntityManager } from 'typeorm';
import { decodeSweepReceipt, SweepReceiptLog } from '@app/chains/sweeps/evm-sweep-receipt';
import { fromBaseUnits, LedgerAccounts, LedgerEntry, LedgerService } from '@app/ledger';

interface BatchSweepRow {
  id: string;
  currency: string;
  token_contract: string;
  token_decimals: number;
  destination: 'hot_wallet' | 'treasury';
  delegate: string | null;
  raw_transaction: string | null;
}

/** What the check did to one transaction's sweep. */
export type SweepAmountsOutcome = 'unchanged' | 'corrected' | 'not-a-sweep' | 'not-posted';

const logger = new Logger('SweepReorgAmounts');

/**
 * A batch sweep moves each account's whole balance (SweepDelegate.sweep), so the amount is the
 * chain's state at the block, not the signed bytes: a reorg deeper than the confirmations that
 * drops the sweep's block, then mines the same bytes again before the payment it swept (or never
 * with it: a double spend), moves less, without a change of status nor of fee. SweepOutcomes
 * booked the first receipt's Swept events; here, at the fee's finality (same row lock, same
 * transaction), the final receipt's Swept events are compared with what was booked, and the
 * difference is put back between the same two accounts in one entry (`sweep_reorg:<network>:<tx>`,
 * written once). The addresses that kept tokens are marked pending again so the planner sweeps them.
 */
export async function correctSweepAmounts(
  manager: EntityManager,
  ledger: LedgerService,
  network: string,
  txHash: string,
  final: { blockNumber: number; logs: readonly SweepReceiptLog[] },
): Promise<SweepAmountsOutcome> {
  // By the attempt (unique, indexed on network and tx_hash): every fee being made final asks.
  const [sweep]: BatchSweepRow[] = await manager.query(
    `SELECT s.id, s.currency, s.token_contract, s.token_decimals, s.destination, s.delegate,
            a.raw_transaction
       FROM sweep_attempts a JOIN sweeps s ON s.id = a.sweep_id
      WHERE a.network = $1 AND a.tx_hash = $2 AND s.tx_hash = a.tx_hash
        AND s.kind = 'batch' AND s.status = 'Completed'`,
    [network, txHash],
  );
  if (!sweep) return 'not-a-sweep';
  const delegate =
    sweep.delegate ??
    (sweep.raw_transaction ? Transaction.from(sweep.raw_transaction).to : null) ??
    null;
  if (!delegate) return 'not-a-sweep';
  const token = sweep.token_contract.toLowerCase();
  const moved = new Map<string, bigint>();
  for (const swept of decodeSweepReceipt(final.logs, delegate).swept) {
    if (swept.token.toLowerCase() !== token) continue;
    const account = swept.account.toLowerCase();
    moved.set(account, (moved.get(account) ?? 0n) + swept.amount);
  }
  // What was booked per address: a Swept item's amount; nothing for one skipped or failed then.
  const items: Array<{ address: string; base: string }> = await manager.query(
    `SELECT address,
            (CASE WHEN status = 'Swept' THEN amount * power(10, $2::int) ELSE 0 END)::numeric(78, 0)::text AS base
       FROM sweep_items WHERE sweep_id = $1`,
    [sweep.id, sweep.token_decimals],
  );
  let difference = 0n; // booked − final, base units
  const changed: Array<{ address: string; amount: string }> = [];
  for (const item of items) {
    const booked = BigInt(item.base);
    const now = moved.get(item.address.toLowerCase()) ?? 0n;
    if (booked === now) continue;
    difference += booked - now;
    changed.push({
      address: item.address,
      amount: fromBaseUnits(now, sweep.token_decimals).toFixed(),
    });
  }
  if (!changed.length) return 'unchanged';
  if (
    difference !== 0n &&
    !(await ledger.post(manager, reorgEntry(network, txHash, sweep, difference)))
  ) {
    // Corrected once already (a second reorg deeper than finality): the books would miss this one.
    logger.error(
      { network, txHash, sweepId: sweep.id, baseUnits: difference.toString() },
      'A sweep correction not posted (its reference is taken): left for an operator',
    );
    return 'not-posted';
  }
  await manager.query(
    `UPDATE sweep_items i SET amount = o.amount::numeric, status = 'Swept'
       FROM json_to_recordset($2::json) AS o(address text, amount text)
      WHERE i.sweep_id = $1 AND i.address = o.address`,
    [sweep.id, JSON.stringify(changed)],
  );
  // Their tokens (if any came back) are still on the address: read again from the final block.
  await manager.query(
    `UPDATE sweep_addresses
        SET pending_since = COALESCE(pending_since, now()),
            pending_block = GREATEST(COALESCE(pending_block, 0), $4), updated_at = now()
      WHERE network = $1 AND currency = $2 AND address = ANY($3)`,
    [network, sweep.currency, changed.map((item) => item.address), final.blockNumber],
  );
  logger.warn(
    {
      network,
      txHash,
      sweepId: sweep.id,
      addresses: changed.length,
      baseUnits: difference.toString(),
    },
    'Sweep corrected: a reorg mined it again moving other amounts',
  );
  return 'corrected';
}

/** Back from the destination to `deposits` what the final receipt did not move (signed). */
function reorgEntry(
  network: string,
  txHash: string,
  sweep: Pick<BatchSweepRow, 'currency' | 'token_decimals' | 'destination'>,
  difference: bigint,
): LedgerEntry {
  const magnitude = fromBaseUnits(difference < 0n ? -difference : difference, sweep.token_decimals);
  const amount = difference < 0n ? magnitude.negated() : magnitude;
  const token = { currency: sweep.currency, network };
  const destination =
    sweep.destination === 'treasury'
      ? LedgerAccounts.treasury(network, sweep.currency)
      : LedgerAccounts.hotWallet(network, sweep.currency);
  return {
    reference: `sweep_reorg:${network}:${txHash}`,
    kind: 'sweep_reorg',
    lines: [
      { account: LedgerAccounts.deposits(network, sweep.currency), amount, ...token },
      { account: destination, amount: amount.negated(), ...token },
    ],
  };
}
