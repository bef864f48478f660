import { randomBytes } from 'node:crypto';
import { watchedDepth } from '@app/deposits/scan-plan';
import { NetworkRegistry } from '@app/chains';
import { newId } from '@app/common';
import { cleanUpPayouts, randomEvmAddress } from '../support/payouts-api';
import { paidSession, postSessionRefund } from '../support/refunds-api';
import { insertSessionTransaction } from '../support/session-transactions';
import { TestApi, TestMerchant } from '../support/test-app';

// No suite watches it: a cursor row this suite writes is removed afterwards.
const NETWORK = 'BSC';

/*
 * A payment a reorg reverted may be mined again and credited again (the watcher brings a Reverted
 * transfer back when it finds it): until its block leaves the watcher's reorg window, a refund
 * decided without it is refused as for a payment still confirming (docs/refunds.md, "Late
 * payments and reorgs").
 */
describe('Refunds: a session whose payment a reorg reverted', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let cursor: number;
  let depth: number;
  let createdCursor = false;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Reorged Refunds Shop' });
    const inserted = await api.dataSource.query(
      `INSERT INTO chain_cursors (network, last_scanned_block) VALUES ($1, 1000)
       ON CONFLICT (network) DO NOTHING RETURNING network`,
      [NETWORK],
    );
    createdCursor = inserted.length > 0;
    const [row] = await api.dataSource.query(
      `SELECT last_scanned_block::int AS block FROM chain_cursors WHERE network = $1`,
      [NETWORK],
    );
    cursor = row.block;
    depth = watchedDepth(api.app.get(NetworkRegistry).get(NETWORK).confirmations);
  });

  afterAll(async () => {
    if (createdCursor) {
      await api.dataSource.query(`DELETE FROM chain_cursors WHERE network = $1`, [NETWORK]);
    }
    await cleanUpPayouts(api, [merchant]);
    await api.close();
  });

  /** An Underpaid session that received 50 and whose second payment of 50 a reorg reverted. */
  const sessionWithReverted = async (blockNumber: number) => {
    const session = await paidSession(api, merchant, {
      network: NETWORK,
      amount: '100',
      received: '50',
      status: 'Underpaid',
    });
    await insertSessionTransaction(api.dataSource, {
      id: newId('ctx'),
      sessionId: session.id,
      txHash: '0x' + randomBytes(32).toString('hex'),
      amount: '50',
      status: 'Reverted',
      blockNumber,
      network: NETWORK,
    });
    return session;
  };

  it('refuses the refund while the reverted payment is inside the reorg window', async () => {
    const session = await sessionWithReverted(cursor - depth + 1);
    const { status, body } = await postSessionRefund(api, merchant, session.id, {
      to_address: randomEvmAddress(),
    });
    expect(status).toBe(409);
    expect(body.error).toMatchObject({ code: 'invalid_state', param: 'id' });
    expect(body.error.message).toContain('reorganization');
    expect(await api.count('refunds', 'session_id = $1', [session.id])).toBe(0);
  });

  it('refunds once the reverted payment is below the window', async () => {
    const session = await sessionWithReverted(cursor - depth - 1);
    const { status, body } = await postSessionRefund(api, merchant, session.id, {
      to_address: randomEvmAddress(),
    });
    expect({ status, amount: body.amount }).toEqual({ status: 201, amount: '50' });
  });
});
