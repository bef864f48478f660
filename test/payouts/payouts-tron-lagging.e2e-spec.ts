import { randomTronAddress } from '../support/payouts-api';
import { TRON_USDT as USDT } from '../support/tron-keys';
import { useTronSuite } from '../support/tron-suite';
import { waitFor } from '../support/wait-for';

const PAYOUTS = 60;

/*
 * TRON payouts behind a URL that answers 3 calls in 4 from a backend 25 blocks (over a
 * minute) behind, while the node forgets its pool now and then (a restart): transactions expire
 * unmined and are signed again, others are mined late in their window. A backend behind must
 * never "prove" an expiry: each payout is paid exactly once.
 */
describe('TRON payouts behind a lagging load balancer', () => {
  const suite = useTronSuite({
    hotWallet: 'tron lagging payouts hot wallet',
    hotWalletHolds: { usdt: 1_000_000_000_000n, trx: 1_000_000_000_000n },
    proxy: (proxy) => (proxy.lagging = { blocks: 25, share: 0.75 }),
    confirmations: 30,
    environment: {
      PAYOUT_RETRY_DELAY_MS: '300',
      PAYOUT_NETWORK_FEES: 'TRON=1',
    },
    worker: true,
    merchant: { usdt: '100000' },
  });

  it('pays each payout exactly once while transactions expire, are signed again and mine late', async () => {
    const { node, api } = suite;
    const recipients = Array.from({ length: PAYOUTS }, () => randomTronAddress());
    const ids: string[] = [];
    for (const to of recipients) ids.push(await suite.createPayout('11', to));
    const finished = () =>
      api.count('payouts', `id = ANY($1) AND status IN ('Completed', 'Failed')`, [ids]);
    // The chain moves one block per poll. The node mines what its pool holds every 20 blocks, so
    // many transactions are mined late in their 20-block window and wait 30 confirmations: the
    // backend behind does not have them while the solidified head passes their expiration. Now
    // and then the node restarts and forgets its pool instead, so those transactions expire.
    let poll = 0;
    await waitFor(
      async () => {
        poll += 1;
        if (poll % 40 === 7) node.dropBroadcasts();
        else if (poll % 20 === 0) node.mineBroadcasts();
        else node.mineEmpty(1);
        return (await finished()) === PAYOUTS;
      },
      240_000,
      'every payout final',
    );

    const statuses = await api.dataSource.query(
      `SELECT status, count(*)::int AS count FROM payouts WHERE id = ANY($1) GROUP BY status`,
      [ids],
    );
    expect(statuses).toEqual([{ status: 'Completed', count: PAYOUTS }]);
    for (const to of recipients) expect(node.tokenBalance(USDT, to)).toBe(10_000_000n);
    // Some transactions expired and were signed again: the proofs were exercised.
    expect(
      await api.count('payout_attempts', `payout_id = ANY($1) AND status = 'Expired'`, [ids]),
    ).toBeGreaterThan(0);
  }, 300_000);
});
