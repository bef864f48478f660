import { randomUUID } from 'node:crypto';
import { PayAddressPool } from '@app/checkout';
import { DepositWatcherService } from '@app/deposits';
import { forgetChain } from '../support/chain-reset';
import { useChainEnvironment } from '../support/chain-test-env';
import { CliProcess, CliResult } from '../support/cli-process';
import { DEVNET_ACCOUNTS, DEVNET_CHAIN_ID, Devnet, startDevnet } from '../support/devnet';
import { ChainIdDevnet, devnetNetworksFileJson, rawTransaction } from '../support/devnet-networks';
import { TestApi, TestMerchant } from '../support/test-app';
import { createSession, readSession, SESSIONS } from '../support/sessions-api';

const UNMATCHED = '/v1/unmatched-transfers';
// More than one: every tick rescans the last CONFIRMATIONS blocks, so the suite sees the same
// transfers found again and again, as the watcher does on a real chain.
const CONFIRMATIONS = 3;
const BSC_TESTNET_CHAIN_ID = 97;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UTX_ID = /^utx_[A-Za-z0-9]{22}$/;
const PAYER = DEVNET_ACCOUNTS.payer.address;

interface Unmatched {
  id: string;
  reason: string;
  status: string;
  session_id: string;
  sub_merchant_code: string | null;
  network: string;
  amount: string;
  tx_hash: string;
  block_number: number;
}

describe('Unmatched transfers on real EVM chains (one anvil as ETHEREUM, one as BSC)', () => {
  let ethereum: Devnet;
  let bsc: ChainIdDevnet;
  let api: TestApi;
  let watcher: DepositWatcherService;
  let cli: CliProcess;
  let environment: ReturnType<typeof useChainEnvironment>;

  beforeAll(async () => {
    [ethereum, bsc, cli] = await Promise.all([
      startDevnet(),
      ChainIdDevnet.start(BSC_TESTNET_CHAIN_ID),
      CliProcess.shared(),
    ]);
    environment = useChainEnvironment(
      devnetNetworksFileJson({
        ETHEREUM: {
          rpcUrl: ethereum.rpcUrl,
          tokens: ethereum.tokens,
          chainId: DEVNET_CHAIN_ID,
          confirmations: CONFIRMATIONS,
        },
        BSC: {
          rpcUrl: bsc.rpcUrl,
          tokens: bsc.tokens,
          chainId: bsc.chainId,
          confirmations: CONFIRMATIONS,
        },
      }),
    );
    api = await TestApi.start();
    watcher = api.app.get(DepositWatcherService);
    // New chains: forget the ones earlier suites watched under these names.
    await forgetChain(api.app, 'ETHEREUM');
    await forgetChain(api.app, 'BSC');
  });

  afterAll(async () => {
    cli?.remove();
    await api?.close();
    await bsc?.stop();
    await ethereum?.stop();
    environment?.restore();
  });

  /** One tick on each network, as the worker runs them. */
  const scan = async () => {
    await watcher.scan('ETHEREUM');
    await watcher.scan('BSC');
  };
  /** Mines enough blocks on both chains for the last transfer to count, then scans. */
  const settle = async () => {
    await ethereum.mine(CONFIRMATIONS - 1);
    await bsc.devnet.mine(CONFIRMATIONS - 1);
    await scan();
  };
  const list = async (merchant: TestMerchant, query = '') =>
    (await api.get(`${UNMATCHED}${query}`, merchant).expect(200)).body as Unmatched[];
  const json = (result: CliResult): unknown => {
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    return JSON.parse(result.stdout);
  };

  it('records a payment on the wrong network, credits nothing, and shows it to its merchant only', async () => {
    const merchant = await api.createMerchant({ name: 'Wrong Network Shop' });
    const stranger = await api.createMerchant({ name: 'Someone Else' });
    const session = await createSession(api, merchant, { pricing_amount: '10' });
    // The customer's wallet was on BSC: same address, other chain.
    const sent = await bsc.transfer('USDT', session.pay_address, '10');
    await settle();

    expect(await readSession(api, merchant, session.id)).toMatchObject({
      status: 'Pending',
      amount_received: '0',
      transactions: [],
    });
    expect((await api.get('/v1/balances', merchant).expect(200)).body).toEqual([]);

    const response = await api.get(UNMATCHED, merchant).expect(200);
    expect(response.headers['x-total-count']).toBe('1');
    const expected = {
      id: expect.stringMatching(UTX_ID),
      reason: 'wrong_network',
      status: 'detected',
      livemode: false,
      session_id: session.id,
      sub_merchant_code: null,
      network: 'BSC',
      currency: 'USDT',
      currency_contract: bsc.tokens.USDT.contract,
      amount: '10',
      from_address: PAYER,
      to_address: session.pay_address,
      tx_hash: sent.txHash,
      log_index: 0,
      block_number: sent.blockNumber,
      created_at: expect.stringMatching(ISO_UTC),
    };
    expect(response.body).toEqual([expected]);
    const { id } = response.body[0] as Unmatched;
    expect((await api.get(`${UNMATCHED}/${id}`, merchant).expect(200)).body).toEqual(expected);

    // Another merchant: the same id is unknown, its list is empty.
    const foreign = await api.get(`${UNMATCHED}/${id}`, stranger).expect(404);
    expect(foreign.body.error).toMatchObject({ code: 'resource_missing', param: 'id' });
    expect(await list(stranger)).toEqual([]);
    await api.get(`${UNMATCHED}/utx_0000000000000000000000`, merchant).expect(404);
  });

  it('records the other stablecoin on the right network as wrong_token', async () => {
    const merchant = await api.createMerchant();
    const session = await createSession(api, merchant, { pricing_amount: '10' });
    const sent = await ethereum.transfer('USDC', session.pay_address, '10');
    await settle();

    expect(await readSession(api, merchant, session.id)).toMatchObject({
      status: 'Pending',
      amount_received: '0',
      transactions: [],
    });
    expect(await list(merchant, `?session_id=${session.id}`)).toEqual([
      expect.objectContaining({
        reason: 'wrong_token',
        network: 'ETHEREUM',
        currency: 'USDC',
        currency_contract: ethereum.tokens.USDC.contract,
        amount: '10',
        tx_hash: sent.txHash,
      }),
    ]);
  });

  it('credits a session once and records a second payment to it, once Paid, as session_already_paid', async () => {
    const merchant = await api.createMerchant();
    const session = await createSession(api, merchant, { pricing_amount: '10' });
    const first = await ethereum.transfer('USDT', session.pay_address, '10');
    await settle();
    expect(await readSession(api, merchant, session.id)).toMatchObject({ status: 'Paid' });
    // The trailing rescan finds the session's own payment again: still the session's own.
    await scan();
    await scan();
    expect(await list(merchant)).toEqual([]);

    const second = await ethereum.transfer('USDT', session.pay_address, '4.5');
    await settle();
    const paid = await readSession(api, merchant, session.id);
    expect(paid).toMatchObject({ status: 'Paid', amount_received: '10' });
    expect(paid.transactions).toEqual([
      expect.objectContaining({ tx_hash: first.txHash, amount: '10', status: 'Confirmed' }),
    ]);
    expect(await list(merchant)).toEqual([
      expect.objectContaining({
        reason: 'session_already_paid',
        session_id: session.id,
        network: 'ETHEREUM',
        amount: '4.5',
        tx_hash: second.txHash,
      }),
    ]);
    const [balance] = (await api.get('/v1/balances', merchant).expect(200)).body;
    expect(balance).toMatchObject({ network: 'ETHEREUM', currency: 'USDT', available: '9.9' });
  });

  // Six CLI processes, each starting Nest: seconds apiece on a loaded machine.
  it('records a transfer to a pool address without a session for operators only (CLI)', async () => {
    // An address a failed request claimed and never used: ours, but no session's.
    const { address } = await api.app.get(PayAddressPool).next('EVM');
    const sent = await ethereum.transfer('USDT', address, '7.25');
    await settle();

    const operator = json(
      await cli.run('unmatched:list', '--reason', 'unknown_address', '--network', 'ETHEREUM'),
    ) as Array<Record<string, unknown>>;
    expect(operator.filter((item) => item.tx_hash === sent.txHash)).toEqual([
      {
        id: expect.stringMatching(UTX_ID),
        reason: 'unknown_address',
        status: 'detected',
        livemode: false,
        merchant_id: null,
        sub_merchant_code: null,
        session_id: null,
        network: 'ETHEREUM',
        currency: 'USDT',
        token_contract: ethereum.tokens.USDT.contract,
        amount: '7.25',
        amount_base_units: '7250000',
        from_address: PAYER,
        to_address: address,
        tx_hash: sent.txHash,
        log_index: 0,
        block_number: sent.blockNumber,
        block_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        created_at: expect.stringMatching(ISO_UTC),
        reverted_at: null,
      },
    ]);
    expect(operator.every((item) => item.reason === 'unknown_address')).toBe(true);

    // Without filters: every merchant's and no merchant's, newest first.
    const everything = json(await cli.run('unmatched:list')) as Array<Record<string, unknown>>;
    expect(everything[0]).toMatchObject({ tx_hash: sent.txHash, reason: 'unknown_address' });
    expect(new Set(everything.map((item) => item.reason))).toEqual(
      new Set(['unknown_address', 'session_already_paid', 'wrong_token', 'wrong_network']),
    );
    const onBsc = json(await cli.run('unmatched:list', '--network', 'BSC')) as Array<{
      network: string;
    }>;
    expect(onBsc.length).toBeGreaterThan(0);
    expect(onBsc.every((item) => item.network === 'BSC')).toBe(true);

    for (const refused of await Promise.all([
      cli.run('unmatched:list', '--reason', 'lost'),
      cli.run('unmatched:list', '--network', 'MOON'),
      cli.run('unmatched:list', '--limit', '0'),
    ])) {
      expect({ code: refused.code, stdout: refused.stdout }).toEqual({ code: 2, stdout: '' });
      expect(refused.stderr).toMatch(/--(reason|network|limit) must be/);
    }

    // No merchant sees it, not even through the filter.
    const merchant = await api.createMerchant();
    await api.get(`${UNMATCHED}?reason=unknown_address`, merchant).expect(400);
    const count = await api.count(
      'unmatched_transfers',
      `tx_hash = $1 AND merchant_id IS NULL AND session_id IS NULL`,
      [sent.txHash],
    );
    expect(count).toBe(1);
  });

  it('ignores zero-value transfers entirely (address poisoning)', async () => {
    const merchant = await api.createMerchant();
    const session = await createSession(api, merchant, { pricing_amount: '10' });
    const { address: poolAddress } = await api.app.get(PayAddressPool).next('EVM');
    const before = {
      unmatched: await api.count('unmatched_transfers'),
      transactions: await api.count('session_transactions'),
    };
    const sent = [
      await ethereum.transfer('USDT', session.pay_address, '0'),
      await ethereum.transfer('USDC', session.pay_address, '0'),
      await ethereum.transfer('USDT', poolAddress, '0'),
      await bsc.transfer('USDT', session.pay_address, '0'),
    ];
    await settle();

    expect({
      unmatched: await api.count('unmatched_transfers'),
      transactions: await api.count('session_transactions'),
    }).toEqual(before);
    for (const transfer of sent) {
      expect(await api.count('unmatched_transfers', 'tx_hash = $1', [transfer.txHash])).toBe(0);
    }
    expect(await readSession(api, merchant, session.id)).toMatchObject({
      status: 'Pending',
      transactions: [],
    });
    expect(await list(merchant)).toEqual([]);
  });

  it('scopes lists by sub-merchant like session lists, and filters them', async () => {
    const psp = await api.createMerchant({ kind: 'psp', name: 'PayCo' });
    await api.post('/v1/sub-merchants', psp, { code: 'shop-a', name: 'Shop A' }).expect(201);
    const own = await createSession(api, psp, { pricing_amount: '5' });
    const ofShop = await createSession(
      api,
      psp,
      { pricing_amount: '6' },
      { 'X-Sub-Merchant-Code': 'shop-a' },
    );
    await bsc.transfer('USDT', own.pay_address, '5');
    await settle();
    await bsc.transfer('USDT', ofShop.pay_address, '6');
    await settle();

    const pick = (items: Unmatched[]) =>
      items.map((item) => ({ session_id: item.session_id, code: item.sub_merchant_code }));
    expect(pick(await list(psp))).toEqual([{ session_id: own.id, code: null }]);
    expect(pick(await list(psp, '?include_sub_merchants=true'))).toEqual([
      { session_id: ofShop.id, code: 'shop-a' },
      { session_id: own.id, code: null },
    ]);
    expect(pick(await list(psp, '?sub_merchant_code=shop-a'))).toEqual([
      { session_id: ofShop.id, code: 'shop-a' },
    ]);
    const [ofShopItem] = await list(psp, '?sub_merchant_code=shop-a');
    // The id alone reads it, whichever sub-merchant it belongs to (as sessions do).
    await api.get(`${UNMATCHED}/${ofShopItem.id}`, psp).expect(200);

    const unknownCode = await api.get(`${UNMATCHED}?sub_merchant_code=nope-nope`, psp).expect(400);
    expect(unknownCode.body.error).toMatchObject({
      code: 'invalid_sub_merchant_code',
      param: 'sub_merchant_code',
    });
    const direct = await api.createMerchant();
    await api.get(`${UNMATCHED}?sub_merchant_code=shop-a`, direct).expect(403);

    const all = '?include_sub_merchants=true';
    expect(await list(psp, `${all}&reason=wrong_token`)).toEqual([]);
    expect(await list(psp, `${all}&network=ETHEREUM`)).toEqual([]);
    expect(await list(psp, `${all}&reason=wrong_network&network=BSC`)).toHaveLength(2);
    expect(await list(psp, `${all}&status=reverted`)).toEqual([]);
    expect(await list(psp, `${all}&created_after=2999-01-01T00:00:00Z`)).toEqual([]);
    const paged = await api.get(`${UNMATCHED}${all}&page_size=1&page=2`, psp).expect(200);
    expect(pick(paged.body)).toEqual([{ session_id: own.id, code: null }]);
    expect(paged.headers['x-total-count']).toBe('2');
    expect(paged.headers.link).toContain('rel="first"');
    const invalid = await api.get(`${UNMATCHED}?reason=lost`, psp).expect(400);
    expect(invalid.body.error).toMatchObject({ code: 'parameter_invalid', param: 'reason' });
  });

  it('records each transfer once however often the same blocks are scanned', async () => {
    const merchant = await api.createMerchant();
    const session = await createSession(api, merchant, { pricing_amount: '3' });
    const sent = await bsc.transfer('USDT', session.pay_address, '3');
    await settle();
    const [recorded] = await list(merchant);
    expect(recorded).toMatchObject({ tx_hash: sent.txHash, reason: 'wrong_network' });
    const total = await api.count('unmatched_transfers');

    // No new block: every tick rescans the trailing window, which holds the transfer.
    for (let tick = 0; tick < 3; tick++) await scan();
    expect(await api.count('unmatched_transfers')).toBe(total);
    expect(await list(merchant)).toEqual([recorded]);
    const [row] = await api.dataSource.query(
      `SELECT count(*)::int AS count FROM unmatched_transfers WHERE tx_hash = $1`,
      [sent.txHash],
    );
    expect(row.count).toBe(1);
  });

  it('reverts an unmatched transfer a reorg dropped and reopens it when it is mined again', async () => {
    const merchant = await api.createMerchant();
    const session = await createSession(api, merchant, { pricing_amount: '8' });
    const snapshot = await bsc.devnet.snapshot();
    const sent = await bsc.transfer('USDT', session.pay_address, '8');
    const raw = await rawTransaction(bsc.provider, sent.txHash);
    await settle();
    const [recorded] = await list(merchant);
    expect(recorded).toMatchObject({ status: 'detected', block_number: sent.blockNumber });

    await bsc.devnet.revert(snapshot);
    bsc.resetNonces();
    await bsc.devnet.mine(CONFIRMATIONS + 2);
    await scan();
    expect(await list(merchant)).toEqual([{ ...recorded, status: 'reverted' }]);
    expect(await list(merchant, '?status=reverted')).toHaveLength(1);

    // The same signed transaction is mined again, in another block: the same record, reopened.
    const again = (await bsc.provider.send('eth_sendRawTransaction', [raw])) as string;
    expect(again.toLowerCase()).toBe(sent.txHash);
    await settle();
    const [reopened] = await list(merchant);
    const receipt = await bsc.provider.getTransactionReceipt(sent.txHash);
    expect(receipt?.blockNumber).not.toBe(sent.blockNumber);
    expect(reopened).toEqual({
      ...recorded,
      status: 'detected',
      block_number: receipt?.blockNumber,
    });
    expect(await readSession(api, merchant, session.id)).toMatchObject({
      status: 'Pending',
      amount_received: '0',
    });
  });
  // After the CLI test: its list of every reason predates this one.
  it('records a payment to a session with a live refund as session_refunded, crediting nothing', async () => {
    const merchant = await api.createMerchant({ name: 'Refunding Shop' });
    const session = await createSession(api, merchant, { pricing_amount: '20' });
    await ethereum.transfer('USDT', session.pay_address, '10');
    await settle();
    expect(await readSession(api, merchant, session.id)).toMatchObject({
      status: 'Pending',
      amount_received: '10',
    });
    // The merchant refunds what came (the order is off); the customer then pays the rest.
    const { body: refund } = await api
      .post(
        `${SESSIONS}/${session.id}/refunds`,
        merchant,
        { amount: '9' },
        {
          'Idempotency-Key': randomUUID(),
        },
      )
      .expect(201);
    expect(refund).toMatchObject({ status: 'requires_destination', amount: '9' });
    const late = await ethereum.transfer('USDT', session.pay_address, '10');
    await settle();

    // Not credited: the session would be Paid while its refund goes out.
    expect(await readSession(api, merchant, session.id)).toMatchObject({
      status: 'Pending',
      amount_received: '10',
    });
    expect(await list(merchant, `?session_id=${session.id}`)).toEqual([
      expect.objectContaining({
        reason: 'session_refunded',
        session_id: session.id,
        amount: '10',
        tx_hash: late.txHash,
      }),
    ]);
    const [balance] = (await api.get('/v1/balances', merchant).expect(200)).body;
    expect(balance).toMatchObject({ network: 'ETHEREUM', available: '0.9', held: '9' });
  });
});
