import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { StrangerCoin } from '@app/treasury/sweeps/stranger-coin';
import { SweepChainReset } from '@app/treasury/sweeps/sweep-chain-reset';
import { CliModule } from '../../apps/cli/src/cli.module';

// A network no other sweep suite uses: forgetting it ends nobody else's sweeps.
const NETWORK = 'ARBITRUM';
const ETH = 10n ** 18n;

/*
 * chains:forget's part for third parties' native coin (docs/treasury.md, "Native coin of others"):
 * what was booked on the forgotten chain is reversed, so the per-address books of the new chain
 * start from zero, and a booking of the new chain at a block number the old one used is written.
 */
describe('chains:forget reverses the forgotten chain’s third-party native coin', () => {
  let context: INestApplicationContext;
  let dataSource: DataSource;

  beforeAll(async () => {
    context = await NestFactory.createApplicationContext(CliModule, { logger: false });
    await context.init();
    dataSource = context.get(DataSource);
  });

  afterAll(async () => {
    await context?.close();
  });

  const address = () => `0x${randomBytes(20).toString('hex')}`;
  const linesOf = async (at: string) =>
    (
      (await dataSource.query(
        `SELECT e.reference, l.account, l.amount::text FROM ledger_lines l
           JOIN ledger_entries e ON e.id = l.entry_id
          WHERE e.reference LIKE $1 ORDER BY e.reference, l.account`,
        [`unmatched_native:${NETWORK}:${at}:%`],
      )) as Array<{ reference: string; account: string; amount: string }>
    ).map((line) => ({ ...line, amount: line.amount.replace(/\.?0+$/, '') }));

  it('reverses each unmatched_native entry once, and books the new chain’s coin from zero', async () => {
    const strangers = context.get(StrangerCoin);
    const reset = context.get(SweepChainReset);
    const at = address();

    expect(await strangers.book(NETWORK, at, ETH / 2n, 10)).toBe(ETH / 2n);
    const forgotten = await reset.forget(NETWORK);
    expect(forgotten.reversedStrangerCoin).toBeGreaterThanOrEqual(1);
    const base = `unmatched_native:${NETWORK}:${at}:10`;
    expect(await linesOf(at)).toEqual([
      { reference: base, account: `deposits:${NETWORK}:ETH`, amount: '0.5' },
      { reference: base, account: `unmatched:${NETWORK}:ETH`, amount: '-0.5' },
      { reference: `${base}:forgotten`, account: `deposits:${NETWORK}:ETH`, amount: '-0.5' },
      { reference: `${base}:forgotten`, account: `unmatched:${NETWORK}:ETH`, amount: '0.5' },
    ]);

    // The new chain: 0.2 ETH of a third party at the same block number the old chain used.
    expect(await strangers.book(NETWORK, at, ETH / 5n, 10)).toBe(ETH / 5n);
    const lines = await linesOf(at);
    expect(lines.filter((line) => line.reference === `${base}:chain2`)).toEqual([
      { reference: `${base}:chain2`, account: `deposits:${NETWORK}:ETH`, amount: '0.2' },
      { reference: `${base}:chain2`, account: `unmatched:${NETWORK}:ETH`, amount: '-0.2' },
    ]);

    // Forgotten again: only the new chain's entry is reversed; the old one was already.
    await reset.forget(NETWORK);
    const after = await linesOf(at);
    expect(after.map((line) => line.reference)).toEqual([
      base,
      base,
      `${base}:chain2`,
      `${base}:chain2`,
      `${base}:chain2:forgotten`,
      `${base}:chain2:forgotten`,
      `${base}:forgotten`,
      `${base}:forgotten`,
    ]);
    // A third chain books its coin again from zero, under the next reference.
    expect(await strangers.book(NETWORK, at, ETH / 10n, 10)).toBe(ETH / 10n);
    expect((await linesOf(at)).map((line) => line.reference)).toContain(`${base}:chain3`);
  });

  it('marks the forgotten chain’s fees final: they are never read again', async () => {
    const txHash = `0x${randomBytes(32).toString('hex')}`;
    await dataSource.query(
      `INSERT INTO network_fee_receipts (network, tx_hash, fee_base_units) VALUES ($1, $2, 21000)`,
      [NETWORK, txHash],
    );
    const report = await context.get(SweepChainReset).forget(NETWORK);
    expect(report.finalizedFees).toBeGreaterThanOrEqual(1);
    const [row] = await dataSource.query(
      `SELECT final_at IS NOT NULL AS final FROM network_fee_receipts
        WHERE network = $1 AND tx_hash = $2`,
      [NETWORK, txHash],
    );
    expect(row).toEqual({ final: true });
  });
});
