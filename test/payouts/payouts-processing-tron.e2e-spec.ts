import { PayoutSender } from '@app/payouts';
import { randomTronAddress } from '../support/payouts-api';
import { TRON_USDT as USDT, TRX, tronAddressOf, tronTestKey } from '../support/tron-keys';
import { useTronSuite } from '../support/tron-suite';
import { waitFor } from '../support/wait-for';

const HOT_WALLET_LABEL = 'tron payouts e2e hot wallet';

/*
 * TRON payouts built and signed with tronweb by the running worker and broadcast to the fake TRON
 * node, which verifies every signature with tronweb's own code and moves token balances.
 */
describe('TRON payouts through the signature-checking fake node', () => {
  const suite = useTronSuite({
    hotWallet: HOT_WALLET_LABEL,
    hotWalletHolds: { usdt: 1_000_000_000n, trx: 1_000n * TRX },
    environment: {
      PAYOUT_RETRY_DELAY_MS: '300',
      PAYOUT_NETWORK_FEES: 'TRON=1',
    },
    worker: true,
    merchant: { usdt: '1000' },
  });
  const HOT = suite.hotWallet.address;

  const payout = async (id: string) =>
    (await suite.api.get(`/v1/payouts/${id}`, suite.merchant).expect(200)).body;

  const broadcastOf = (txId: string) => suite.node.broadcasts.filter((b) => b.txid === txId);

  it('signs a TRC-20 transfer the node verifies, and completes when it is mined', async () => {
    const recipient = randomTronAddress();
    const id = await suite.createPayout('25', recipient);
    await waitFor(async () => (await payout(id)).status === 'Processing', 20_000);
    const { tx_hash: txId } = await payout(id);
    await waitFor(async () => broadcastOf(txId).length === 1, 20_000, 'the broadcast');
    const raw = broadcastOf(txId)[0].transaction as { raw_data: { fee_limit: number } };
    expect(raw.raw_data.fee_limit).toBe(30_000_000);

    suite.node.mineBroadcasts();
    await waitFor(async () => (await payout(id)).status === 'Completed', 20_000);
    expect(await payout(id)).toMatchObject({ tx_hash: txId, net_amount: '24' });
    expect(suite.node.tokenBalance(USDT, recipient)).toBe(24_000_000n);
  });

  it('signs a new transaction only after the first one provably expired', async () => {
    const recipient = randomTronAddress();
    const id = await suite.createPayout('10', recipient);
    await waitFor(async () => (await payout(id)).status === 'Processing', 20_000);
    const { tx_hash: first } = await payout(id);
    await waitFor(async () => broadcastOf(first).length === 1, 20_000);
    // The node restarts and forgets it; its expiration passes, then the solidified head does too.
    suite.node.dropBroadcasts();
    suite.node.mineEmpty(20 + suite.node.solidLag + 2);
    await waitFor(async () => (await payout(id)).tx_hash !== first, 30_000, 'a new transaction');
    const attempts: Array<{ tx_hash: string; status: string }> = await suite.api.dataSource.query(
      `SELECT tx_hash, status FROM payout_attempts WHERE payout_id = $1 ORDER BY attempt_number`,
      [id],
    );
    expect(attempts.map((attempt) => attempt.status)).toEqual(['Expired', expect.any(String)]);
    const second = attempts[1].tx_hash;
    await waitFor(async () => broadcastOf(second).length === 1, 20_000);
    suite.node.mineBroadcasts();
    await waitFor(async () => (await payout(id)).status === 'Completed', 20_000);
    expect(await payout(id)).toMatchObject({ tx_hash: second });
    expect(suite.node.tokenBalance(USDT, recipient)).toBe(9_000_000n);
  });

  it('never signs from a key that is not the registered hot wallet (another worker registered its own)', async () => {
    const sender = suite.worker.get(PayoutSender);
    const other = tronAddressOf(tronTestKey('tron payouts e2e other worker'));
    await suite.api.dataSource.query(`UPDATE hot_wallets SET address = $1 WHERE network = 'TRON'`, [
      other,
    ]);
    let id: string;
    try {
      id = await suite.createPayout('3');
      expect(await sender.send(id)).toBe('skipped');
      expect(await suite.api.count('payout_attempts', 'payout_id = $1', [id])).toBe(0);
      expect((await payout(id)).status).toBe('Pending');
    } finally {
      await suite.api.dataSource.query(
        `UPDATE hot_wallets SET address = $1 WHERE network = 'TRON'`,
        [HOT],
      );
    }
    await waitFor(async () => (await payout(id)).status === 'Processing', 20_000);
    suite.node.mineBroadcasts();
    await waitFor(async () => (await payout(id)).status === 'Completed', 20_000);
  });

  it('waits while the hot wallet has too little TRX for the fee limit', async () => {
    suite.node.setTrxBalance(HOT, 1n * TRX);
    const recipient = randomTronAddress();
    let id: string;
    try {
      id = await suite.createPayout('5', recipient);
      await waitFor(
        async () => (await payout(id)).pending_reason === 'hot_wallet_insufficient_gas',
        20_000,
      );
    } finally {
      suite.node.setTrxBalance(HOT, 1_000n * TRX);
    }
    await waitFor(async () => (await payout(id)).status === 'Processing', 20_000);
    suite.node.mineBroadcasts();
    await waitFor(async () => (await payout(id)).status === 'Completed', 20_000);
    expect(suite.node.tokenBalance(USDT, recipient)).toBe(4_000_000n);
  });
});

describe('PAYOUT_HOT_WALLET_SHORTFALL=fail', () => {
  const suite = useTronSuite({
    hotWallet: HOT_WALLET_LABEL,
    // 1 USDT: less than any payout below
    hotWalletHolds: { usdt: 1_000_000n, trx: 1_000n * TRX },
    environment: { PAYOUT_HOT_WALLET_SHORTFALL: 'fail' },
    worker: true,
    merchant: { usdt: '100' },
  });

  it('fails a payout the hot wallet cannot cover, sends nothing and releases the funds', async () => {
    const { api, merchant } = suite;
    const id = await suite.createPayout('50', tronAddressOf(tronTestKey('shortfall recipient')));
    await waitFor(
      async () => (await api.get(`/v1/payouts/${id}`, merchant)).body.status === 'Failed',
      20_000,
    );
    const { body: failed } = await api.get(`/v1/payouts/${id}`, merchant).expect(200);
    expect(failed).toMatchObject({
      error_reason: 'The hot wallet does not hold enough tokens for this payout.',
      tx_hash: null,
      pending_reason: null,
    });
    expect(suite.node.broadcasts).toEqual([]);
    const { body: balances } = await api.get('/v1/balances', merchant).expect(200);
    expect(balances).toEqual([
      { currency: 'USDT', network: 'TRON', sub_merchant_code: null, available: '100', held: '0' },
    ]);
  });
});
