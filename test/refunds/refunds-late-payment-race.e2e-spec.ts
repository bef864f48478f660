import { randomBytes } from 'node:crypto';
import { newId } from '@app/common';
import { balanceOf, cleanUpPayouts, randomEvmAddress } from '../support/payouts-api';
import { paidSession, postSessionRefund } from '../support/refunds-api';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const NETWORK = 'BSC';

/*
 * The race a late payment leaves (docs/refunds.md, "Late payments and reorgs"): the deposit
 * watcher classifies a transfer to a session (no live refund yet: credited to it) while a refund
 * of that session is being decided. The refund's transaction waits for the tick in flight (it
 * holds the session's row), then sees the payment confirming and is refused: it never commits on
 * what the session received before a payment it did not see.
 */
describe('Refunds: a payment classified while a refund is decided', () => {
  let api: TestApi;
  let merchant: TestMerchant;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Racing Refunds Shop' });
  });

  afterAll(async () => {
    await cleanUpPayouts(api, [merchant]);
    await api.close();
  });

  /** Whether a backend of this database (the refund's) waits for a lock (the tick's). */
  const someoneWaits = async () => {
    const rows: Array<{ count: string }> = await api.dataSource.query(
      `SELECT count(*)::text AS count FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    return Number(rows[0].count) > 0;
  };

  it('waits for the tick that credits a payment to the session, then refuses the refund', async () => {
    const session = await paidSession(api, merchant, {
      network: NETWORK,
      amount: '100',
      received: '40',
      status: 'Underpaid',
    });
    const before = await balanceOf(api, merchant, NETWORK, 'USDT');

    // A watcher tick in flight: the session locked (TransferMatcher), the transfer
    // classified for the session (it had no refund when the tick read it) and written, not
    // committed yet.
    const tick = api.dataSource.createQueryRunner();
    await tick.connect();
    await tick.startTransaction();
    try {
      await tick.query(`SELECT 1 FROM checkout_sessions WHERE id = $1 FOR UPDATE`, [session.id]);
      await tick.query(
        `INSERT INTO session_transactions
           (id, session_id, network, tx_hash, log_index, amount, status, block_number,
            block_hash, currency, token_contract, from_address, to_address, amount_base_units)
         VALUES ($1, $2, $3, $4, 0, '60', 'Pending', 1, '0xblock', 'USDT', '0xtoken', $5, $6,
                 '60000000000000000000')`,
        [
          newId('ctx'),
          session.id,
          NETWORK,
          '0x' + randomBytes(32).toString('hex'),
          randomEvmAddress(),
          session.pay_address,
        ],
      );

      let answered = false;
      const refund = postSessionRefund(api, merchant, session.id, {
        to_address: randomEvmAddress(),
      }).then((response) => {
        answered = true;
        return response;
      });
      // The refund must wait for the tick: were it to answer first, it decided without the
      // payment the tick is about to commit. (Reading its facts in the statement that locks the
      // session, it waits too, but reads session_transactions from a snapshot taken before the
      // tick committed, and refunds: 201.)
      await waitFor(async () => answered || (await someoneWaits()), 30_000);
      if (answered) {
        const early = await refund;
        throw new Error(`The refund answered ${early.status} while the tick was in flight`);
      }
      await tick.commitTransaction();

      const { status, body } = await refund;
      expect(status).toBe(409);
      expect(body.error).toMatchObject({ code: 'invalid_state', param: 'id' });
      expect(body.error.message).toContain('still confirming');
    } finally {
      if (tick.isTransactionActive) await tick.rollbackTransaction();
      await tick.release();
    }
    expect(await api.count('refunds', 'session_id = $1', [session.id])).toBe(0);
    expect(await balanceOf(api, merchant, NETWORK, 'USDT')).toEqual(before);
  });
});
