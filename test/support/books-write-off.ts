import Decimal from 'decimal.js';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ASSET_ACCOUNT_KINDS, LedgerAccounts, LedgerLine, LedgerService } from '@app/ledger';

/**
 * The books' side of starting a new chain under a network's name (forgetChain is the deposits'
 * side): what the network's asset accounts (deposits, hot_wallet, treasury, sweeper, staking) hold
 * is written off against owner_funding, as an operator would write off what a reset testnet took
 * with it. Earlier suites of the shared database ran that network on fake nodes gone with them:
 * their units (or debts: a payout suite pays out of a hot wallet nobody booked funding to) are on
 * no chain this suite can read, so reconciliation can come to 0 only once they stop counting.
 * Only asset accounts and owner_funding move; merchants' balances and every earlier entry stay.
 */
export async function writeOffChainBooks(dataSource: DataSource, network: string): Promise<void> {
  const held: Array<{ account: string; currency: string; balance: string }> =
    await dataSource.query(
      `SELECT account, currency, balance::text FROM ledger_balances
        WHERE network = $1 AND kind = ANY($2::text[]) AND balance <> 0 ORDER BY account`,
      [network, ASSET_ACCOUNT_KINDS],
    );
  if (!held.length) return;
  const lines: LedgerLine[] = held.map((row) => ({
    account: row.account,
    amount: new Decimal(row.balance).negated(),
    currency: row.currency,
    network,
  }));
  for (const currency of new Set(held.map((row) => row.currency))) {
    const total = held
      .filter((row) => row.currency === currency)
      .reduce((sum, row) => sum.plus(row.balance), new Decimal(0));
    if (total.isZero()) continue;
    lines.push({
      account: LedgerAccounts.ownerFunding(network, currency),
      amount: total,
      currency,
      network,
    });
  }
  await dataSource.transaction((manager) =>
    new LedgerService(dataSource).post(manager, {
      reference: `test_write_off:${network}:${randomUUID()}`,
      kind: 'test',
      lines,
    }),
  );
}
