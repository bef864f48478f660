import { ChainResetService, DepositWatcherService } from '@app/deposits';
import { useChainSuite } from '../support/chain-suite';
import { Devnet, startDevnet } from '../support/devnet';
import { RpcProxy } from '../support/rpc-proxy';
import { TestApi, TestMerchant } from '../support/test-app';
import { createSession, readSession } from '../support/sessions-api';

/**
 * A devnet restarted (or a testnet reset) is a new chain under the same network name. Until told,
 * the watcher must treat it like a node that is behind (never reverse anything); once the operator
 * forgets the old chain, its payments are taken back and the new chain is followed.
 */
describe('Forgetting a chain that no longer exists (chains:forget)', () => {
  let second: Devnet | undefined;
  // The network's one RPC URL points at the proxy, which is re-pointed to the restarted chain.
  const chain = useChainSuite({
    proxy: true,
    cleanUp: async () => {
      await second?.stop();
    },
  });
  let first: Devnet;
  let proxy: RpcProxy;
  let api: TestApi;
  let merchant: TestMerchant;
  let watcher: DepositWatcherService;
  beforeAll(() => {
    ({ devnet: first, proxy, api, merchant } = chain);
    watcher = api.app.get(DepositWatcherService);
  });

  it('waits on the new chain, then takes the old payments back when told and follows the new one', async () => {
    const paidBefore = await createSession(api, merchant, { pricing_amount: '8' });
    await first.transfer('USDT', paidBefore.pay_address, '8');
    await first.mine(30);
    await watcher.scan('ETHEREUM');
    expect(await readSession(api, merchant, paidBefore.id)).toMatchObject({
      status: 'Paid',
      amount_received: '8',
    });

    // The devnet restarts: a new chain, far shorter than the one the watcher followed.
    second = await startDevnet();
    expect(await second.head()).toBeLessThan(await first.head());
    await first.stop();
    proxy.retarget(second.rpcUrl);
    await expect(watcher.scan('ETHEREUM')).rejects.toMatchObject({ kind: 'transient' });
    expect(await readSession(api, merchant, paidBefore.id)).toMatchObject({
      status: 'Paid',
      amount_received: '8',
    });

    const report = await api.app.get(ChainResetService).forget('ETHEREUM');
    expect(report).toMatchObject({ revertedTransfers: 1, settledSessions: 1 });
    expect(await readSession(api, merchant, paidBefore.id)).toMatchObject({
      status: 'Pending',
      amount_received: '0',
    });

    const paidAfter = await createSession(api, merchant, { pricing_amount: '3' });
    await second.transfer('USDT', paidAfter.pay_address, '3');
    await watcher.scan('ETHEREUM');
    expect(await readSession(api, merchant, paidAfter.id)).toMatchObject({
      status: 'Paid',
      amount_received: '3',
    });
    const entries = await api.dataSource.query(
      `SELECT kind FROM ledger_entries WHERE reference LIKE $1 ORDER BY id`,
      [`checkout_session:${paidBefore.id}:%`],
    );
    expect(entries.map((entry: { kind: string }) => entry.kind)).toEqual([
      'deposit',
      'deposit_reversal',
    ]);
  });

  it("forgets the chain's nonce proofs and keeps other networks'", async () => {
    const wallet = `0x${'7a'.repeat(20)}`;
    const prove = (network: string, nonce: number) =>
      api.dataSource.query(
        `INSERT INTO nonce_proofs
           (network, address, nonce, block_number, block_hash, tx_hash, by_authorization)
         VALUES ($1, $2, $3, 12, $4, $5, false)`,
        [network, wallet, nonce, `0x${'11'.repeat(32)}`, `0x${'22'.repeat(32)}`],
      );
    await prove('ETHEREUM', 4);
    await prove('ETHEREUM', 5);
    await prove('BSC', 4);

    const report = await api.app.get(ChainResetService).forget('ETHEREUM');

    expect(report.forgottenNonceProofs).toBe(2);
    const left = await api.dataSource.query(
      `SELECT network, nonce FROM nonce_proofs WHERE address = $1 ORDER BY network, nonce`,
      [wallet],
    );
    expect(left).toEqual([{ network: 'BSC', nonce: '4' }]);
  });
});
