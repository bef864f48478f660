import { TRON_USDT as USDT, TRX } from '../support/tron-keys';
import { useTronSuite } from '../support/tron-suite';
import { waitFor } from '../support/wait-for';

const USDT_UNIT = 1_000_000n;

/*
 * Review r6, M2: a TRON claim reads the wallet's balance, builds its transactions, then takes the
 * wallet's lock. A payout mined and completed in between took tokens the read still shows: the
 * claim must count it, or it promises those tokens twice and its last transfer reverts on chain.
 */
describe('TRON coverage counts a payout completed between the balance read and the claim', () => {
  const suite = useTronSuite({
    hotWallet: 'tron coverage race e2e hot wallet',
    hotWalletHolds: { trx: 10_000n * TRX },
    environment: {
      // A postponed payout stays put: only the claim under test decides it.
      PAYOUT_RETRY_DELAY_MS: '600000',
      PAYOUT_NETWORK_FEES: 'TRON=0',
    },
    worker: true,
    merchant: { usdt: '1000' },
  });
  const HOT = suite.hotWallet.address;

  const payoutRow = async (id: string) =>
    (
      await suite.api.dataSource.query(
        `SELECT status, pending_reason, tx_hash FROM payouts WHERE id = $1`,
        [id],
      )
    )[0] as { status: string; pending_reason: string | null; tx_hash: string | null };

  it('postpones the payout the wallet no longer covers instead of signing it', async () => {
    const { node, api } = suite;
    // Earlier suites' TRON payouts still in flight count as committed: the wallet holds them
    // too, plus 20 USDT for this test.
    // In base units, exact: the sum is a NUMERIC with decimals ('9.000000000000000000').
    const [{ others }] = await api.dataSource.query(
      `SELECT (COALESCE(sum(net_amount), 0) * $2::numeric)::numeric(78, 0)::text AS others
         FROM payouts
        WHERE network = 'TRON' AND token_contract = $1 AND status = 'Processing'`,
      [USDT, USDT_UNIT.toString()],
    );
    node.setTokenBalance(USDT, HOT, BigInt(others) + 20n * USDT_UNIT);

    // Y: 10 of the 20, signed and broadcast, not mined yet.
    const y = await suite.createPayout('10');
    await waitFor(async () => (await payoutRow(y)).status === 'Processing', 30_000, 'Y signed');
    const yTx = (await payoutRow(y)).tx_hash!;
    await waitFor(async () => node.broadcasts.some((b) => b.txid === yTx), 30_000, 'Y broadcast');

    // Z: 15. Its claim reads 20 (Y not mined), then builds its transaction: held there.
    const build = node.hold('/wallet/triggersmartcontract');
    let building = false;
    void build.reached.then(() => (building = true));
    let z: string;
    try {
      z = await suite.createPayout('15');
      await waitFor(async () => building, 30_000, "Z's transaction being built");
      // Meanwhile Y is mined and completed: the wallet holds 10, and Y is no longer in flight.
      node.mineBroadcasts();
      await waitFor(async () => (await payoutRow(y)).status === 'Completed', 30_000, 'Y done');
    } finally {
      build.release();
    }

    // The claim goes on: 20 read, Y completed since the read, 10 left: Z waits, unsigned.
    await waitFor(
      async () => {
        const row = await payoutRow(z);
        return row.status !== 'Pending' || row.pending_reason !== null;
      },
      30_000,
      'Z decided',
    );
    expect(await payoutRow(z)).toEqual({
      status: 'Pending',
      pending_reason: 'hot_wallet_insufficient_token',
      tx_hash: null,
    });
    expect(await api.count('payout_attempts', 'payout_id = $1', [z])).toBe(0);

    // Refilled, it is sent and completes.
    node.setTokenBalance(USDT, HOT, BigInt(others) * USDT_UNIT + 100n * USDT_UNIT);
    await api.dataSource.query(`UPDATE payouts SET next_attempt_at = now() WHERE id = $1`, [z]);
    await waitFor(async () => (await payoutRow(z)).status === 'Processing', 30_000, 'Z signed');
    node.mineBroadcasts();
    await waitFor(async () => (await payoutRow(z)).status === 'Completed', 30_000, 'Z done');
  });
});
