import { SessionExpiryService } from '@app/checkout';
import { DepositWatcherService } from '@app/deposits';
import { useChainSuite } from '../support/chain-suite';
import { createSession, readSession } from '../support/sessions-api';
import { TestApi, TestMerchant } from '../support/test-app';

const CONFIRMATIONS = 2;

describe('Deposit watcher on a real EVM chain (anvil + ERC-20)', () => {
  // This suite's chain is new: the one the previous suite watched as ETHEREUM is forgotten.
  const chain = useChainSuite({ proxy: true, confirmations: CONFIRMATIONS, merchant: false });

  const scan = () => chain.api.app.get(DepositWatcherService).scan('ETHEREUM');
  const balance = async (merchant: TestMerchant, currency = 'USDT') => {
    const { body } = await chain.api.get('/v1/balances', merchant).expect(200);
    const entry = body.find(
      (item: { network: string; currency: string }) =>
        item.network === 'ETHEREUM' && item.currency === currency,
    );
    return entry?.available ?? '0';
  };
  /** Pays, then mines enough blocks for the transfer to count, then scans. */
  const payAndConfirm = async (to: string, amount: string, currency: 'USDT' | 'USDC' = 'USDT') => {
    const sent = await chain.devnet.transfer(currency, to, amount);
    await chain.devnet.mine(CONFIRMATIONS - 1);
    await scan();
    return sent;
  };

  it('detects an exact payment, confirms it, marks the session Paid and credits the net amount', async () => {
    const merchant = await chain.api.createMerchant();
    const session = await createSession(chain.api, merchant, { pricing_amount: '10' });
    const sent = await chain.devnet.transfer('USDT', session.pay_address, '10');

    await scan();
    const seen = await readSession(chain.api, merchant, session.id);
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

    await chain.devnet.mine(CONFIRMATIONS - 1);
    await scan();
    const paid = await readSession(chain.api, merchant, session.id);
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
    const merchant = await chain.api.createMerchant();
    const session = await createSession(chain.api, merchant, { pricing_amount: '25' });
    await payAndConfirm(session.pay_address, '10.5');
    expect(await readSession(chain.api, merchant, session.id)).toMatchObject({
      status: 'Pending',
      amount_received: '10.5',
    });
    expect(await balance(merchant)).toBe('10.395');
    await payAndConfirm(session.pay_address, '14.5');
    const paid = await readSession(chain.api, merchant, session.id);
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
    const merchant = await chain.api.createMerchant();
    const session = await createSession(chain.api, merchant, { pricing_amount: '10' });
    await payAndConfirm(session.pay_address, '12.345678');
    expect(await readSession(chain.api, merchant, session.id)).toMatchObject({
      status: 'Paid',
      amount_received: '12.345678',
      fee_amount: '0.123457',
      net_amount: '12.222221',
    });
    expect(await balance(merchant)).toBe('12.222221');
  });

  it('counts two payments in one block, to one session and to another', async () => {
    const merchant = await chain.api.createMerchant();
    const first = await createSession(chain.api, merchant, { pricing_amount: '10' });
    const second = await createSession(chain.api, merchant, { pricing_amount: '3' });
    const sent = await chain.devnet.transferMany([
      { currency: 'USDT', to: first.pay_address, amount: '4' },
      { currency: 'USDT', to: first.pay_address, amount: '6' },
      { currency: 'USDT', to: second.pay_address, amount: '3' },
    ]);
    expect(new Set(sent.map((item) => item.blockNumber)).size).toBe(1);
    await chain.devnet.mine(CONFIRMATIONS - 1);
    await scan();
    const one = await readSession(chain.api, merchant, first.id);
    expect(one).toMatchObject({ status: 'Paid', amount_received: '10' });
    expect(one.transactions.map((item) => item.amount).sort()).toEqual(['4', '6']);
    expect(await readSession(chain.api, merchant, second.id)).toMatchObject({
      status: 'Paid',
      amount_received: '3',
    });
  });

  it('ignores transfers to unknown addresses and of another token', async () => {
    const merchant = await chain.api.createMerchant();
    const session = await createSession(chain.api, merchant, {
      pricing_amount: '10',
      currency: 'USDT',
    });
    const before = await chain.api.count('session_transactions');
    await chain.devnet.transfer('USDT', '0x000000000000000000000000000000000000bEEF', '10');
    await payAndConfirm(session.pay_address, '10', 'USDC');
    expect(await chain.api.count('session_transactions')).toBe(before);
    expect(await readSession(chain.api, merchant, session.id)).toMatchObject({
      status: 'Pending',
      amount_received: '0',
    });
  });

  it('expires sessions and still credits late payments, a full one making the session Paid', async () => {
    const merchant = await chain.api.createMerchant();
    const late = await createSession(chain.api, merchant, { pricing_amount: '10' });
    const short = await createSession(chain.api, merchant, { pricing_amount: '10' });
    const untouched = await createSession(chain.api, merchant, { pricing_amount: '10' });
    await chain.api.dataSource.query(
      `UPDATE checkout_sessions SET expires_at = now() - interval '1 second' WHERE id = ANY($1)`,
      [[late.id, short.id, untouched.id]],
    );
    await chain.api.app.get(SessionExpiryService).expireDue();
    expect((await readSession(chain.api, merchant, late.id)).status).toBe('Expired');

    await payAndConfirm(late.pay_address, '10');
    await payAndConfirm(short.pay_address, '3');
    expect(await readSession(chain.api, merchant, late.id)).toMatchObject({
      status: 'Paid',
      amount_received: '10',
    });
    expect(await readSession(chain.api, merchant, short.id)).toMatchObject({
      status: 'Underpaid',
      amount_received: '3',
    });
    expect(await readSession(chain.api, merchant, untouched.id)).toMatchObject({
      status: 'Expired',
      amount_received: '0',
    });
    expect(await balance(merchant)).toBe('12.87');
  });

  it('reverts a payment dropped by a reorg: transfer Reverted, session and ledger back', async () => {
    const merchant = await chain.api.createMerchant();
    const session = await createSession(chain.api, merchant, { pricing_amount: '10' });
    const snapshot = await chain.devnet.snapshot();
    await payAndConfirm(session.pay_address, '10');
    expect(await readSession(chain.api, merchant, session.id)).toMatchObject({
      status: 'Paid',
      amount_received: '10',
    });
    expect(await balance(merchant)).toBe('9.9');

    await chain.devnet.revert(snapshot);
    await chain.devnet.mine(CONFIRMATIONS + 2);
    await scan();
    const reverted = await readSession(chain.api, merchant, session.id);
    expect(reverted).toMatchObject({
      status: 'Pending',
      amount_received: '0',
      fee_amount: '0',
      net_amount: '0',
    });
    expect(reverted.transactions).toEqual([expect.objectContaining({ status: 'Reverted' })]);
    expect(await balance(merchant)).toBe('0');
    const entries = await chain.api.dataSource.query(
      `SELECT kind FROM ledger_entries WHERE reference LIKE $1 ORDER BY id`,
      [`checkout_session:${session.id}:%`],
    );
    expect(entries.map((entry: { kind: string }) => entry.kind)).toEqual([
      'deposit',
      'deposit_reversal',
    ]);

    // The customer pays again on the new chain: counted once more.
    await payAndConfirm(session.pay_address, '10');
    expect(await readSession(chain.api, merchant, session.id)).toMatchObject({
      status: 'Paid',
      amount_received: '10',
    });
    expect(await balance(merchant)).toBe('9.9');
  });

  it('survives the RPC going away: nothing skipped, nothing counted twice', async () => {
    const merchant = await chain.api.createMerchant();
    const session = await createSession(chain.api, merchant, { pricing_amount: '5' });
    await scan();
    const [before] = await chain.api.dataSource.query(
      `SELECT last_scanned_block FROM chain_cursors WHERE network = 'ETHEREUM'`,
    );
    await chain.proxy.down();
    await chain.devnet.transfer('USDT', session.pay_address, '5');
    await chain.devnet.mine(CONFIRMATIONS);
    await expect(scan()).rejects.toMatchObject({ name: 'ChainError', kind: 'transient' });
    const [during] = await chain.api.dataSource.query(
      `SELECT last_scanned_block FROM chain_cursors WHERE network = 'ETHEREUM'`,
    );
    expect(during.last_scanned_block).toBe(before.last_scanned_block);

    await chain.proxy.up();
    await scan();
    await scan();
    const paid = await readSession(chain.api, merchant, session.id);
    expect(paid).toMatchObject({ status: 'Paid', amount_received: '5' });
    expect(paid.transactions).toHaveLength(1);
    expect(await balance(merchant)).toBe('4.95');
  });

  it('double-counts nothing when two workers scan at once', async () => {
    const second = await TestApi.start();
    try {
      const merchant = await chain.api.createMerchant();
      const sessions = await Promise.all(
        Array.from({ length: 6 }, () =>
          createSession(chain.api, merchant, { pricing_amount: '2' }),
        ),
      );
      await chain.devnet.transferMany(
        sessions.map((session) => ({
          currency: 'USDT' as const,
          to: session.pay_address,
          amount: '2',
        })),
      );
      await chain.devnet.mine(CONFIRMATIONS);
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
        const paid = await readSession(chain.api, merchant, session.id);
        expect(paid).toMatchObject({ status: 'Paid', amount_received: '2' });
        expect(paid.transactions).toHaveLength(1);
      }
      expect(await balance(merchant)).toBe('11.88');
      const entries = await chain.api.count(
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
    const psp = await chain.api.createMerchant({ kind: 'psp', name: 'PayCo' });
    await chain.api.post('/v1/sub-merchants', psp, { code: 'shop-a', name: 'Shop A' }).expect(201);
    const own = await createSession(chain.api, psp, { pricing_amount: '10' });
    const ofShop = await createSession(
      chain.api,
      psp,
      { pricing_amount: '20' },
      { 'X-Sub-Merchant-Code': 'shop-a' },
    );
    await payAndConfirm(own.pay_address, '10');
    await payAndConfirm(ofShop.pay_address, '20');

    const ownOnly = await chain.api.get('/v1/balances', psp).expect(200);
    expect(ownOnly.body).toEqual([
      {
        currency: 'USDT',
        network: 'ETHEREUM',
        sub_merchant_code: null,
        available: '9.9',
        held: '0',
      },
    ]);
    const all = await chain.api.get('/v1/balances?include_sub_merchants=true', psp).expect(200);
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
    const shop = await chain.api.get('/v1/balances?sub_merchant_code=shop-a', psp).expect(200);
    expect(shop.body).toEqual([
      {
        currency: 'USDT',
        network: 'ETHEREUM',
        sub_merchant_code: 'shop-a',
        available: '19.8',
        held: '0',
      },
    ]);
    await chain.api.get('/v1/balances?sub_merchant_code=nope-nope', psp).expect(400);
    const direct = await chain.api.createMerchant();
    await chain.api.get('/v1/balances?sub_merchant_code=shop-a', direct).expect(403);
    expect((await chain.api.get('/v1/balances?network=TRON', psp).expect(200)).body).toEqual([]);
  });

  it('keeps the ledger balanced: every entry sums to zero and balances match the sessions', async () => {
    const [unbalanced] = await chain.api.dataSource.query(
      `SELECT count(*)::int AS count FROM (
         SELECT entry_id FROM ledger_lines GROUP BY entry_id HAVING sum(amount) <> 0) t`,
    );
    expect(unbalanced.count).toBe(0);
    // This suite's merchants only: other suites fund balances without sessions and pay out.
    const [totals] = await chain.api.dataSource.query(
      `SELECT (SELECT -COALESCE(sum(amount), 0) FROM ledger_lines WHERE merchant_id = ANY($1)) AS ledger,
              (SELECT COALESCE(sum(net_amount), 0) FROM checkout_sessions WHERE merchant_id = ANY($1)) AS sessions`,
      [chain.api.merchantIds],
    );
    expect(totals.ledger).toBe(totals.sessions);
    await expect(
      chain.api.dataSource.query(`UPDATE ledger_lines SET amount = amount * 2`),
    ).rejects.toThrow(/append-only/);
  });
});
