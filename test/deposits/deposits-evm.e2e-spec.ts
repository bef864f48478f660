import { SessionExpiryService } from '@app/checkout';
import { DepositWatcherService } from '@app/deposits';
import { Devnet, startDevnet } from '../support/devnet';
import { RpcProxy } from '../support/rpc-proxy';
import { useChainEnvironment } from '../support/chain-test-env';
import { TestApi, TestMerchant } from '../support/test-app';
import { forgetChain } from '../support/chain-reset';

const SESSIONS = '/v1/checkout/sessions';
const CONFIRMATIONS = 2;

interface Session {
  id: string;
  status: string;
  amount_received: string;
  fee_amount: string;
  net_amount: string;
  pay_address: string;
  transactions: Array<{ amount: string; status: string; tx_hash: string; network: string }>;
}

describe('Deposit watcher on a real EVM chain (anvil + ERC-20)', () => {
  let devnet: Devnet;
  let proxy: RpcProxy;
  let api: TestApi;
  let watcher: DepositWatcherService;
  let environment: ReturnType<typeof useChainEnvironment>;

  beforeAll(async () => {
    devnet = await startDevnet();
    proxy = await RpcProxy.start(devnet.rpcUrl);
    environment = useChainEnvironment(
      devnet.networksFileJson({ rpcUrls: [proxy.url], confirmations: CONFIRMATIONS }),
    );
    api = await TestApi.start();
    watcher = api.app.get(DepositWatcherService);
    // This suite's chain is new: forget the one the previous suite watched as ETHEREUM.
    await forgetChain(api.app, 'ETHEREUM');
  });

  afterAll(async () => {
    await api?.close();
    await proxy?.stop();
    await devnet?.stop();
    environment?.restore();
  });

  const scan = () => watcher.scan('ETHEREUM');
  const createSession = async (merchant: TestMerchant, amount: string, currency = 'USDT') =>
    (
      await api
        .post(SESSIONS, merchant, {
          pricing_amount: amount,
          pricing_currency: 'USD',
          currency,
          network: 'ETHEREUM',
        })
        .expect(201)
    ).body as Session;
  const read = async (merchant: TestMerchant, id: string) =>
    (await api.get(`${SESSIONS}/${id}`, merchant).expect(200)).body as Session;
  const balance = async (merchant: TestMerchant, currency = 'USDT') => {
    const { body } = await api.get('/v1/balances', merchant).expect(200);
    const entry = body.find(
      (item: { network: string; currency: string }) =>
        item.network === 'ETHEREUM' && item.currency === currency,
    );
    return entry?.available ?? '0';
  };
  /** Pays, then mines enough blocks for the transfer to count, then scans. */
  const payAndConfirm = async (to: string, amount: string, currency: 'USDT' | 'USDC' = 'USDT') => {
    const sent = await devnet.transfer(currency, to, amount);
    await devnet.mine(CONFIRMATIONS - 1);
    await scan();
    return sent;
  };

  it('detects an exact payment, confirms it, marks the session Paid and credits the net amount', async () => {
    const merchant = await api.createMerchant();
    const session = await createSession(merchant, '10');
    const sent = await devnet.transfer('USDT', session.pay_address, '10');

    await scan();
    const seen = await read(merchant, session.id);
    expect(seen.status).toBe('Pending');
    expect(seen.amount_received).toBe('0');
    expect(seen.transactions).toEqual([
      expect.objectContaining({
        amount: '10',
        status: 'Pending',
        tx_hash: sent.txHash,
        network: 'ETHEREUM',
      }),
    ]);
    expect(await balance(merchant)).toBe('0');

    await devnet.mine(CONFIRMATIONS - 1);
    await scan();
    const paid = await read(merchant, session.id);
    expect(paid).toMatchObject({
      status: 'Paid',
      amount_received: '10',
      fee_amount: '0.1',
      net_amount: '9.9',
    });
    expect(paid.transactions).toEqual([
      expect.objectContaining({ status: 'Confirmed', tx_hash: sent.txHash }),
    ]);
    expect(await balance(merchant)).toBe('9.9');
  });

  it('adds a partial payment and a top-up', async () => {
    const merchant = await api.createMerchant();
    const session = await createSession(merchant, '25');
    await payAndConfirm(session.pay_address, '10.5');
    expect(await read(merchant, session.id)).toMatchObject({
      status: 'Pending',
      amount_received: '10.5',
    });
    expect(await balance(merchant)).toBe('10.395');
    await payAndConfirm(session.pay_address, '14.5');
    const paid = await read(merchant, session.id);
    expect(paid).toMatchObject({
      status: 'Paid',
      amount_received: '25',
      fee_amount: '0.25',
      net_amount: '24.75',
    });
    expect(paid.transactions).toHaveLength(2);
    expect(await balance(merchant)).toBe('24.75');
  });

  it('records an overpayment in full', async () => {
    const merchant = await api.createMerchant();
    const session = await createSession(merchant, '10');
    await payAndConfirm(session.pay_address, '12.345678');
    expect(await read(merchant, session.id)).toMatchObject({
      status: 'Paid',
      amount_received: '12.345678',
      fee_amount: '0.123457',
      net_amount: '12.222221',
    });
    expect(await balance(merchant)).toBe('12.222221');
  });

  it('counts two payments in one block, to one session and to another', async () => {
    const merchant = await api.createMerchant();
    const first = await createSession(merchant, '10');
    const second = await createSession(merchant, '3');
    const sent = await devnet.transferMany([
      { currency: 'USDT', to: first.pay_address, amount: '4' },
      { currency: 'USDT', to: first.pay_address, amount: '6' },
      { currency: 'USDT', to: second.pay_address, amount: '3' },
    ]);
    expect(new Set(sent.map((item) => item.blockNumber)).size).toBe(1);
    await devnet.mine(CONFIRMATIONS - 1);
    await scan();
    const one = await read(merchant, first.id);
    expect(one).toMatchObject({ status: 'Paid', amount_received: '10' });
    expect(one.transactions.map((item) => item.amount).sort()).toEqual(['4', '6']);
    expect(await read(merchant, second.id)).toMatchObject({ status: 'Paid', amount_received: '3' });
  });

  it('ignores transfers to unknown addresses and of another token', async () => {
    const merchant = await api.createMerchant();
    const session = await createSession(merchant, '10', 'USDT');
    const before = await api.count('session_transactions');
    await devnet.transfer('USDT', '0x000000000000000000000000000000000000bEEF', '10');
    await payAndConfirm(session.pay_address, '10', 'USDC');
    expect(await api.count('session_transactions')).toBe(before);
    expect(await read(merchant, session.id)).toMatchObject({
      status: 'Pending',
      amount_received: '0',
    });
  });

  it('expires sessions and still credits late payments, a full one making the session Paid', async () => {
    const merchant = await api.createMerchant();
    const late = await createSession(merchant, '10');
    const short = await createSession(merchant, '10');
    const untouched = await createSession(merchant, '10');
    await api.dataSource.query(
      `UPDATE checkout_sessions SET expires_at = now() - interval '1 second' WHERE id = ANY($1)`,
      [[late.id, short.id, untouched.id]],
    );
    await api.app.get(SessionExpiryService).expireDue();
    expect((await read(merchant, late.id)).status).toBe('Expired');

    await payAndConfirm(late.pay_address, '10');
    await payAndConfirm(short.pay_address, '3');
    expect(await read(merchant, late.id)).toMatchObject({ status: 'Paid', amount_received: '10' });
    expect(await read(merchant, short.id)).toMatchObject({
      status: 'Underpaid',
      amount_received: '3',
    });
    expect(await read(merchant, untouched.id)).toMatchObject({
      status: 'Expired',
      amount_received: '0',
    });
    expect(await balance(merchant)).toBe('12.87');
  });

  it('reverts a payment dropped by a reorg: transfer Reverted, session and ledger back', async () => {
    const merchant = await api.createMerchant();
    const session = await createSession(merchant, '10');
    const snapshot = await devnet.snapshot();
    await payAndConfirm(session.pay_address, '10');
    expect(await read(merchant, session.id)).toMatchObject({
      status: 'Paid',
      amount_received: '10',
    });
    expect(await balance(merchant)).toBe('9.9');

    await devnet.revert(snapshot);
    await devnet.mine(CONFIRMATIONS + 2);
    await scan();
    const reverted = await read(merchant, session.id);
    expect(reverted).toMatchObject({
      status: 'Pending',
      amount_received: '0',
      fee_amount: '0',
      net_amount: '0',
    });
    expect(reverted.transactions).toEqual([expect.objectContaining({ status: 'Reverted' })]);
    expect(await balance(merchant)).toBe('0');
    const entries = await api.dataSource.query(
      `SELECT kind FROM ledger_entries WHERE reference LIKE $1 ORDER BY id`,
      [`checkout_session:${session.id}:%`],
    );
    expect(entries.map((entry: { kind: string }) => entry.kind)).toEqual([
      'deposit',
      'deposit_reversal',
    ]);

    // The customer pays again on the new chain: counted once more.
    await payAndConfirm(session.pay_address, '10');
    expect(await read(merchant, session.id)).toMatchObject({
      status: 'Paid',
      amount_received: '10',
    });
    expect(await balance(merchant)).toBe('9.9');
  });

  it('survives the RPC going away: nothing skipped, nothing counted twice', async () => {
    const merchant = await api.createMerchant();
    const session = await createSession(merchant, '5');
    await scan();
    const [before] = await api.dataSource.query(
      `SELECT last_scanned_block FROM chain_cursors WHERE network = 'ETHEREUM'`,
    );
    await proxy.down();
    await devnet.transfer('USDT', session.pay_address, '5');
    await devnet.mine(CONFIRMATIONS);
    await expect(scan()).rejects.toMatchObject({ name: 'ChainError', kind: 'transient' });
    const [during] = await api.dataSource.query(
      `SELECT last_scanned_block FROM chain_cursors WHERE network = 'ETHEREUM'`,
    );
    expect(during.last_scanned_block).toBe(before.last_scanned_block);

    await proxy.up();
    await scan();
    await scan();
    const paid = await read(merchant, session.id);
    expect(paid).toMatchObject({ status: 'Paid', amount_received: '5' });
    expect(paid.transactions).toHaveLength(1);
    expect(await balance(merchant)).toBe('4.95');
  });

  it('double-counts nothing when two workers scan at once', async () => {
    const second = await TestApi.start();
    try {
      const merchant = await api.createMerchant();
      const sessions = await Promise.all(
        Array.from({ length: 6 }, () => createSession(merchant, '2')),
      );
      await devnet.transferMany(
        sessions.map((session) => ({
          currency: 'USDT' as const,
          to: session.pay_address,
          amount: '2',
        })),
      );
      await devnet.mine(CONFIRMATIONS);
      const otherWatcher = second.app.get(DepositWatcherService);
      const reports = await Promise.all([
        scan(),
        otherWatcher.scan('ETHEREUM'),
        scan(),
        otherWatcher.scan('ETHEREUM'),
      ]);
      await Promise.all([scan(), otherWatcher.scan('ETHEREUM')]);
      expect(reports.some((report) => report.skipped || report.detected === 0)).toBe(true);
      for (const session of sessions) {
        const paid = await read(merchant, session.id);
        expect(paid).toMatchObject({ status: 'Paid', amount_received: '2' });
        expect(paid.transactions).toHaveLength(1);
      }
      expect(await balance(merchant)).toBe('11.88');
      const entries = await api.count(
        'ledger_entries e',
        `EXISTS (SELECT 1 FROM ledger_lines l WHERE l.entry_id = e.id AND l.merchant_id = $1)`,
        [merchant.id],
      );
      expect(entries).toBe(6);
    } finally {
      await second.close();
    }
  });

  it('keeps balances per sub-merchant for PSPs, scoped like lists', async () => {
    const psp = await api.createMerchant({ kind: 'psp', name: 'PayCo' });
    await api.post('/v1/sub-merchants', psp, { code: 'shop-a', name: 'Shop A' }).expect(201);
    const own = await createSession(psp, '10');
    const { body: ofShop } = await api
      .post(
        SESSIONS,
        psp,
        { pricing_amount: '20', pricing_currency: 'USD', currency: 'USDT', network: 'ETHEREUM' },
        { 'X-Sub-Merchant-Code': 'shop-a' },
      )
      .expect(201);
    await payAndConfirm(own.pay_address, '10');
    await payAndConfirm(ofShop.pay_address, '20');

    const ownOnly = await api.get('/v1/balances', psp).expect(200);
    expect(ownOnly.body).toEqual([
      {
        currency: 'USDT',
        network: 'ETHEREUM',
        sub_merchant_code: null,
        available: '9.9',
        held: '0',
      },
    ]);
    const all = await api.get('/v1/balances?include_sub_merchants=true', psp).expect(200);
    expect(all.body).toEqual([
      {
        currency: 'USDT',
        network: 'ETHEREUM',
        sub_merchant_code: null,
        available: '9.9',
        held: '0',
      },
      {
        currency: 'USDT',
        network: 'ETHEREUM',
        sub_merchant_code: 'shop-a',
        available: '19.8',
        held: '0',
      },
    ]);
    const shop = await api.get('/v1/balances?sub_merchant_code=shop-a', psp).expect(200);
    expect(shop.body).toEqual([
      {
        currency: 'USDT',
        network: 'ETHEREUM',
        sub_merchant_code: 'shop-a',
        available: '19.8',
        held: '0',
      },
    ]);
    await api.get('/v1/balances?sub_merchant_code=nope-nope', psp).expect(400);
    const direct = await api.createMerchant();
    await api.get('/v1/balances?sub_merchant_code=shop-a', direct).expect(403);
    expect((await api.get('/v1/balances?network=TRON', psp).expect(200)).body).toEqual([]);
  });

  it('keeps the ledger balanced: every entry sums to zero and balances match the sessions', async () => {
    const [unbalanced] = await api.dataSource.query(
      `SELECT count(*)::int AS count FROM (
         SELECT entry_id FROM ledger_lines GROUP BY entry_id HAVING sum(amount) <> 0) t`,
    );
    expect(unbalanced.count).toBe(0);
    // This suite's merchants only: other suites fund balances without sessions and pay out.
    const [totals] = await api.dataSource.query(
      `SELECT (SELECT -COALESCE(sum(amount), 0) FROM ledger_lines WHERE merchant_id = ANY($1)) AS ledger,
              (SELECT COALESCE(sum(net_amount), 0) FROM checkout_sessions WHERE merchant_id = ANY($1)) AS sessions`,
      [api.merchantIds],
    );
    expect(totals.ledger).toBe(totals.sessions);
    await expect(
      api.dataSource.query(`UPDATE ledger_lines SET amount = amount * 2`),
    ).rejects.toThrow(/append-only/);
  });
});
