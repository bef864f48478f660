import Decimal from 'decimal.js';
import { NetworkRegistry } from '@app/chains';
import { LedgerAccounts, LedgerService } from '@app/ledger';
import { StrangerCoin } from '@app/treasury/sweeps/stranger-coin';
import { randomTronAddress } from '../support/payouts-api';
import { TestApi } from '../support/test-app';

/*
 * A third party's TRX on a deposit address is booked as unmatched (reference
 * unmatched_native:<network>:<address>:<block>) before a sweep takes the address's tokens. When
 * that reference is already taken by an entry the count of forgotten chains does not know of (a
 * devnet forgotten by a release before the reversals), the post writes nothing: the amount is
 * not booked, and the sweep waits (sweeps review L1).
 */
describe('StrangerCoin.book tells what it booked', () => {
  let api: TestApi;
  let strangers: StrangerCoin;
  let ledger: LedgerService;

  beforeAll(async () => {
    api = await TestApi.start();
    ledger = new LedgerService(api.dataSource);
    strangers = new StrangerCoin(api.dataSource, api.app.get(NetworkRegistry), ledger);
  });

  afterAll(async () => {
    await api?.close();
  });

  const entriesOf = async (reference: string): Promise<string[]> =>
    (
      await api.dataSource.query(
        `SELECT reference FROM ledger_entries WHERE reference LIKE $1 ORDER BY reference`,
        [`${reference}%`],
      )
    ).map((row: { reference: string }) => row.reference);

  it('books nothing and answers null when the reference is taken', async () => {
    const address = randomTronAddress();
    const block = 4242;
    const reference = `unmatched_native:TRON:${address}:${block}`;
    // The old chain's entry at the same block, never reversed: 5 TRX.
    const amount = new Decimal(5);
    const line = { currency: 'TRX', network: 'TRON' };
    await api.dataSource.transaction((manager) =>
      ledger.post(manager, {
        reference,
        kind: 'unmatched_native',
        lines: [
          { account: LedgerAccounts.deposits('TRON', 'TRX'), amount, ...line },
          { account: LedgerAccounts.unmatched('TRON', 'TRX'), amount: amount.negated(), ...line },
        ],
      }),
    );

    // 8 TRX held: 3 beyond the books, under a reference already taken.
    expect(await strangers.book('TRON', address, 8_000_000n, block)).toBeNull();
    expect(await entriesOf(reference)).toEqual([reference]);
    // Nothing beyond the books: 0, as before.
    expect(await strangers.book('TRON', address, 5_000_000n, block)).toBe(0n);
    // At another block the excess is booked, and said so.
    expect(await strangers.book('TRON', address, 8_000_000n, block + 1)).toBe(3_000_000n);
    expect(await entriesOf(`unmatched_native:TRON:${address}:`)).toEqual([
      reference,
      `unmatched_native:TRON:${address}:${block + 1}`,
    ]);
  });
});
