import { DepositWatcherService } from '@app/deposits';
import { useChainSuite } from '../support/chain-suite';
import { Devnet } from '../support/devnet';
import { cleanUpPayouts, randomEvmAddress } from '../support/payouts-api';
import { paidSession, postSessionRefund } from '../support/refunds-api';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const NETWORK = 'ETHEREUM';
const CONFIRMATIONS = 2;

/*
 * A refund being decided serializes with the deposit watcher on its own session only
 * (docs/refunds.md, "Late payments and reorgs"): a refund waiting for its session, however long,
 * must not keep the network's watcher from crediting other sessions. (It held the network's cursor
 * FOR SHARE while it waited, and every tick skipped the locked cursor.)
 */
describe('Refunds: a refund in progress and the deposit watcher of its network', () => {
  const chain = useChainSuite({
    confirmations: CONFIRMATIONS,
    network: NETWORK,
    merchant: { name: 'Refunding While Selling Shop' },
    cleanUp: (suite) => cleanUpPayouts(suite.api, [suite.merchant]),
  });
  let devnet: Devnet;
  let api: TestApi;
  let merchant: TestMerchant;
  let watcher: DepositWatcherService;
  beforeAll(() => {
    ({ devnet, api, merchant } = chain);
    watcher = api.app.get(DepositWatcherService);
  });

  /** Whether a backend of this database waits for a lock on a session's row. */
  const someoneWaitsForASession = async () => {
    const rows: Array<{ count: string }> = await api.dataSource.query(
      `SELECT count(*)::text AS count FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'
          AND query LIKE '%FROM checkout_sessions%'`,
    );
    return Number(rows[0].count) > 0;
  };

  it('credits another session of the network while a refund waits for its session', async () => {
    const refunded = await paidSession(api, merchant, {
      network: NETWORK,
      amount: '100',
      received: '100',
      status: 'Paid',
    });
    const { body: other } = await api
      .post('/v1/checkout/sessions', merchant, {
        pricing_amount: '10',
        pricing_currency: 'USD',
        currency: 'USDT',
        network: NETWORK,
      })
      .expect(201);
    // A first tick writes the network's cursor row (the one the refund used to lock).
    expect((await watcher.scan(NETWORK)).skipped).toBe(false);
    await devnet.transfer('USDT', other.pay_address, '10');
    await devnet.mine(CONFIRMATIONS - 1);

    // Another refund of the same session deciding: it holds the session's row.
    const otherRefund = api.dataSource.createQueryRunner();
    await otherRefund.connect();
    await otherRefund.startTransaction();
    try {
      await otherRefund.query(`SELECT 1 FROM checkout_sessions WHERE id = $1 FOR UPDATE`, [
        refunded.id,
      ]);
      let answered = false;
      const refund = postSessionRefund(api, merchant, refunded.id, {
        amount: '10',
        to_address: randomEvmAddress(),
      }).then((response) => {
        answered = true;
        return response;
      });
      await waitFor(async () => answered || (await someoneWaitsForASession()), 30_000);
      expect(answered).toBe(false);

      // The refund waits; the watcher's tick of the network goes on all the same.
      const report = await watcher.scan(NETWORK);
      expect(report.skipped).toBe(false);
      const { body: credited } = await api
        .get(`/v1/checkout/sessions/${other.id}`, merchant)
        .expect(200);
      expect(credited.status).toBe('Paid');
      expect(answered).toBe(false);

      await otherRefund.commitTransaction();
      const { status, body } = await refund;
      expect({ status, amount: body.amount }).toEqual({ status: 201, amount: '10' });
    } finally {
      if (otherRefund.isTransactionActive) await otherRefund.rollbackTransaction();
      await otherRefund.release();
    }
  });
});
