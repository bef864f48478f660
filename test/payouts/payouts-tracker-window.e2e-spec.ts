import { Transaction, Wallet } from 'ethers';
import { useChainSuite } from '../support/chain-suite';
import { creditedMerchant } from '../support/ledger-credit';
import { ownHotWalletEnvironment, transfersFrom } from '../support/payout-chain';
import { createPayouts } from '../support/payouts-api';
import { TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

// A hot wallet of this suite's own: no earlier suite's nonces in flight.
const HOT_KEY = Wallet.createRandom();
const HOT_WALLET = HOT_KEY.address;
// The tracker looks at this many payouts per tick (PAYOUT_TRACK_WINDOW); the suite sends more.
const WINDOW = 4;
const PAYOUTS = 7;

interface AttemptRow {
  payout_id: string;
  nonce: string;
  tx_hash: string;
}

/*
 * More payouts in flight than the tracker's window (review r6, M1). The window used to be the
 * payouts least recently updated: a replacement moves a payout to the back, so a wallet's lowest
 * nonce, replaced once and then dropped from the pool, was never looked at again, and every later
 * nonce of the wallet waited behind it for good. Every tick now looks at each wallet's lowest
 * unmined nonces, and walks the rest of the payouts in flight over successive ticks.
 */
describe('Payout tracker window', () => {
  const sentRaw: string[] = [];
  const suite = useChainSuite({
    proxy: true,
    newChain: 'payouts',
    worker: true,
    merchant: false,
    timeoutMs: 120_000,
    // No replacement during the test (ownHotWalletEnvironment's): what moves is the window, not
    // the bids.
    environment: ({ devnet }) =>
      ownHotWalletEnvironment(devnet, HOT_KEY.privateKey, {
        PAYOUT_TRACK_WINDOW: String(WINDOW),
      }),
  });
  let merchant: TestMerchant;

  beforeAll(async () => {
    merchant = await creditedMerchant(suite.api, {
      network: 'ETHEREUM',
      currency: 'USDT',
      amount: '1000',
    });
    // Every raw transaction sent to the node, whoever sends it.
    suite.proxy.intercept((request) => {
      if (request.method === 'eth_sendRawTransaction') {
        sentRaw.push(Transaction.from(String((request.params as unknown[])[0])).hash!);
      }
      return undefined;
    });
  });

  const liveAttempts = (ids: string[]) =>
    suite.api.dataSource.query(
      `SELECT payout_id, nonce, tx_hash FROM payout_attempts
        WHERE payout_id = ANY($1) AND status = 'Broadcast' ORDER BY nonce`,
      [ids],
    ) as Promise<AttemptRow[]>;

  it('re-sends the lowest nonce dropped from the pool while the window is full of higher ones', async () => {
    const { devnet, api } = suite;
    await devnet.provider.send('evm_setAutomine', [false]);
    try {
      const ids = await createPayouts(api, merchant, PAYOUTS);
      await waitFor(
        async () => (await liveAttempts(ids)).length === PAYOUTS,
        60_000,
        'every payout broadcast',
      );
      const attempts = await liveAttempts(ids);
      const [lowest] = attempts;
      // Consecutive nonces from the wallet's first: the lowest one holds up all the others.
      expect(attempts.map((attempt) => Number(attempt.nonce))).toEqual(
        Array.from({ length: PAYOUTS }, (_, index) => index),
      );
      // As a replacement of the lowest one leaves it (insertAttempt moves updated_at to now):
      // the most recently updated payout in flight, last in the order the window used to take.
      await api.dataSource.query(
        `UPDATE payouts SET updated_at = now() + interval '1 second' WHERE id = $1`,
        [lowest.payout_id],
      );
      await devnet.provider.send('anvil_dropTransaction', [lowest.tx_hash]);
      expect(await devnet.provider.getTransaction(lowest.tx_hash)).toBeNull();
      const sentBefore = sentRaw.filter((hash) => hash === lowest.tx_hash).length;

      // The tracker sends its stored bytes again (3 s after its last broadcast at most).
      await waitFor(
        async () => (await devnet.provider.getTransaction(lowest.tx_hash)) !== null,
        30_000,
        'the lowest nonce re-sent',
      );
      expect(sentRaw.filter((hash) => hash === lowest.tx_hash).length).toBeGreaterThan(sentBefore);
      // A block at each look (anvil mines what its pool holds ready). Mined, more payouts than
      // the window complete as the walk reaches them.
      await waitFor(
        async () => {
          await devnet.provider.send('evm_mine', []);
          const completed = await api.count('payouts', `id = ANY($1) AND status = 'Completed'`, [
            ids,
          ]);
          return completed === PAYOUTS;
        },
        60_000,
        'every payout Completed',
      );
      const onChain = await transfersFrom(devnet, 'USDT', HOT_WALLET);
      expect(onChain).toHaveLength(PAYOUTS);
      // Each mined once, with the bytes stored first: nothing was signed anew.
      expect(await api.count('payout_attempts', 'payout_id = ANY($1)', [ids])).toBe(PAYOUTS);
    } finally {
      await devnet.provider.send('evm_setAutomine', [true]);
    }
  });

  it('leaves a claim that waited on the wallet lock to send what it signed: each sent once', async () => {
    const { api } = suite;
    // Another claim's lock on the wallet row, held while this claim's transaction waits for it.
    const holder = api.dataSource.createQueryRunner();
    await holder.connect();
    let ids: string[] = [];
    try {
      await holder.startTransaction();
      await holder.query(`SELECT 1 FROM hot_wallets WHERE network = 'ETHEREUM' FOR UPDATE`);
      ids = await createPayouts(api, merchant, 10);
      // The claim has waited on the lock for longer than the tracker leaves a claim to send its
      // transactions (3 s): its transaction started that long ago.
      await waitFor(
        async () =>
          Number(
            (
              await api.dataSource.query(
                `SELECT count(*) AS count FROM pg_stat_activity
                  WHERE wait_event_type = 'Lock' AND query ILIKE '%hot_wallets%FOR UPDATE%'
                    AND now() - xact_start > interval '4 seconds'`,
              )
            )[0].count,
          ) > 0,
        60_000,
        'a claim waiting on the wallet lock for 4 s',
      );
      await holder.commitTransaction();
    } finally {
      if (holder.isTransactionActive) await holder.rollbackTransaction();
      await holder.release();
    }
    await waitFor(
      async () =>
        (await api.count('payouts', `id = ANY($1) AND status = 'Completed'`, [ids])) === ids.length,
      60_000,
      'every payout Completed',
    );
    const attempts: Array<{ tx_hash: string; broadcast_count: number }> =
      await api.dataSource.query(
        `SELECT tx_hash, broadcast_count FROM payout_attempts WHERE payout_id = ANY($1)`,
        [ids],
      );
    expect(attempts).toHaveLength(ids.length);
    // Sent by its claim only: the tracker left each to it (stored less than 3 s before).
    for (const attempt of attempts) {
      expect({ tx: attempt.tx_hash, count: attempt.broadcast_count }).toEqual({
        tx: attempt.tx_hash,
        count: 1,
      });
      expect(sentRaw.filter((hash) => hash === attempt.tx_hash)).toHaveLength(1);
    }
  });
});
