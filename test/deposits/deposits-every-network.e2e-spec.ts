import Decimal from 'decimal.js';
import { parseUnits } from 'ethers';
import { TronWeb } from 'tronweb';
import {
  ChainAdapters,
  CURRENCIES,
  Currency,
  MAINNET_NETWORKS,
  NETWORK_NAMES,
  NetworkConfig,
  NetworkName,
  TESTNET_NETWORKS,
} from '@app/chains';
import { DepositWatcherService } from '@app/deposits';
import { forgetChain } from '../support/chain-reset';
import { useChainEnvironment } from '../support/chain-test-env';
import {
  Devnet,
  NamedNetworksFileEntry,
  NetworksFileEntry,
  networksFileJsonOf,
  startDevnetAs,
} from '../support/devnet';
import { FakeTronNode } from '../support/fake-tron-node';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { CheckoutSession, createSession, readSession } from '../support/sessions-api';

/*
 * Every network of the registry paid end to end through the API: each EVM network on its own
 * anvil with the network's real chain id and tokens of the network's real decimals (18 for USDT
 * and USDC on BSC), TRON on the fake node. The values are the production table's (MAINNET_NETWORKS):
 * its pairs include every sandbox pair with the same decimals (checked below), so no pair of
 * either environment goes unpaid. Confirmations are lowered to 2 to keep the suite fast.
 *
 * deposits-tron.e2e-spec.ts covers TRON detection, reorgs and outages at 1 confirmation; TRON is
 * here as well for what that suite does not check: waiting for confirmations, the stored base
 * units and the merchant's balance.
 */

const REGISTRY = MAINNET_NETWORKS;
const CONFIRMATIONS = 2;
const PRICE = '12.345678';
// 1 % of 12.345678, rounded half-up to 6 digits (the default fee rule), and what is left.
const FEE = '0.123457';
const NET = '12.222221';
const START_TIMEOUT_MS = 180_000;
const SCAN_TIMEOUT_MS = 20_000;
const TRON_PAYER = TronWeb.address.fromPrivateKey('1'.repeat(64)) as string;

const EVM_NETWORKS = NETWORK_NAMES.filter((name) => REGISTRY[name].chainFamily === 'EVM');

interface Pair {
  network: NetworkName;
  currency: Currency;
  decimals: number;
}

/** Every network and currency the registry supports, with the token's decimals. */
const PAIRS: Pair[] = NETWORK_NAMES.flatMap((network) =>
  CURRENCIES.flatMap((currency) => {
    const token = REGISTRY[network].tokens[currency];
    return token ? [{ network, currency, decimals: token.decimals }] : [];
  }),
);

interface TransferRow {
  network: string;
  currency: string;
  token_contract: string;
  to_address: string;
  tx_hash: string;
  amount: string;
  amount_base_units: string;
  status: string;
}

/** One network's chain as the tests drive it. */
interface TestChain {
  /** The tokens the NETWORKS_FILE names for this network. */
  tokens: Partial<Record<Currency, { contract: string; decimals: number }>>;
  /** Sends `amount` (whole tokens) from the payer to `to`, mined in a new block. */
  pay(currency: Currency, to: string, amount: string): Promise<string>;
  /** Mines empty blocks on top. */
  mine(blocks: number): Promise<void>;
}

function evmChain(devnet: Devnet, network: NetworkConfig): TestChain {
  return {
    tokens: Object.fromEntries(
      CURRENCIES.filter((currency) => network.tokens[currency]).map((currency) => [
        currency,
        devnet.tokens[currency],
      ]),
    ),
    pay: async (currency, to, amount) => (await devnet.transfer(currency, to, amount)).txHash,
    mine: (blocks) => devnet.mine(blocks),
  };
}

function tronChain(node: FakeTronNode, network: NetworkConfig): TestChain {
  const tokens = network.tokens;
  return {
    tokens,
    pay: async (currency, to, amount) => {
      const token = tokens[currency];
      if (!token) throw new Error(`${currency} is not on ${network.name}.`);
      const units = parseUnits(amount, token.decimals);
      const { txIds } = node.addTransferBlock([
        { contract: token.contract, from: TRON_PAYER, to, amount: units },
      ]);
      return txIds[0];
    },
    mine: async (blocks) => {
      node.mineEmpty(blocks);
    },
  };
}

/** The chain's tokens in a NETWORKS_FILE entry, null for the currencies the network lacks. */
function fileTokens(chain: TestChain): NetworksFileEntry['tokens'] {
  return Object.fromEntries(
    CURRENCIES.map((currency) => [currency, chain.tokens[currency] ?? null]),
  );
}

/** "12.345678" in base units of `decimals`, written out by hand rather than by parseUnits. */
function baseUnitsOf(sixDecimalAmount: string, decimals: number): string {
  const [integer, fraction] = sixDecimalAmount.split('.');
  return BigInt(integer + fraction.padEnd(6, '0') + '0'.repeat(decimals - 6)).toString();
}

describe('Deposits on every network of the registry (anvil per EVM network, fake TRON node)', () => {
  const devnets = new Map<NetworkName, Devnet>();
  const chains = new Map<NetworkName, TestChain>();
  let tron: FakeTronNode | undefined;
  let api: TestApi;
  let watcher: DepositWatcherService;
  let environment: ReturnType<typeof useChainEnvironment> | undefined;

  beforeAll(async () => {
    const started = await Promise.allSettled(
      EVM_NETWORKS.map((name) => startDevnetAs(REGISTRY[name])),
    );
    started.forEach((outcome, index) => {
      if (outcome.status === 'fulfilled') devnets.set(EVM_NETWORKS[index], outcome.value);
    });
    const failed = started.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;

    tron = new FakeTronNode();
    const tronUrl = await tron.start();
    tron.mineEmpty(5);

    const entries: NamedNetworksFileEntry[] = EVM_NETWORKS.map((name) => {
      const devnet = devnets.get(name) as Devnet;
      const chain = evmChain(devnet, REGISTRY[name]);
      chains.set(name, chain);
      return devnet.networkEntry(name, { confirmations: CONFIRMATIONS, tokens: fileTokens(chain) });
    });
    const tronTest = tronChain(tron, REGISTRY.TRON);
    chains.set('TRON', tronTest);
    entries.push({
      name: 'TRON',
      entry: {
        displayName: 'Fake TRON node as TRON',
        chainId: REGISTRY.TRON.chainId,
        rpcUrls: [tronUrl],
        publicRpcUrl: tronUrl,
        confirmations: CONFIRMATIONS,
        tokens: fileTokens(tronTest),
      },
    });

    environment = useChainEnvironment(networksFileJsonOf(entries));
    api = await TestApi.start();
    watcher = api.app.get(DepositWatcherService);
    // Every chain here is new: forget what earlier suites' chains left under the same names.
    for (const name of NETWORK_NAMES) await forgetChain(api.app, name);
  }, START_TIMEOUT_MS);

  afterAll(async () => {
    await api?.close();
    await Promise.all([...devnets.values()].map((devnet) => devnet.stop()));
    await tron?.stop();
    environment?.restore();
  });

  const chainOf = (network: NetworkName) => chains.get(network) as TestChain;
  /** Scans the session's network until the session is Paid. */
  const scanUntilPaid = async (merchant: TestMerchant, session: CheckoutSession) => {
    let latest = session;
    await waitFor(
      async () => {
        await watcher.scan(session.network as NetworkName);
        latest = await readSession(api, merchant, session.id);
        return latest.status === 'Paid';
      },
      SCAN_TIMEOUT_MS,
      `${session.network} ${session.currency} session ${session.id} Paid`,
    );
    return latest;
  };
  const transferRows = async (sessionId: string): Promise<TransferRow[]> => {
    const rows: TransferRow[] = await api.dataSource.query(
      `SELECT network, currency, token_contract, to_address, tx_hash, amount::text AS amount,
              amount_base_units::text AS amount_base_units, status
         FROM session_transactions WHERE session_id = $1 ORDER BY block_number, log_index`,
      [sessionId],
    );
    // numeric(38, 18) comes back with 18 fractional digits: compare amounts in canonical form.
    return rows.map((row) => ({ ...row, amount: new Decimal(row.amount).toFixed() }));
  };
  const balances = async (merchant: TestMerchant) =>
    (await api.get('/v1/balances', merchant).expect(200)).body;

  it('maps each network onto its own chain with the registry chain id and token decimals', async () => {
    const merchant = await api.createMerchant();
    const adapters = api.app.get(ChainAdapters);
    for (const name of NETWORK_NAMES) {
      const expected = REGISTRY[name];
      const { body } = await api.get(`/v1/networks/${name}`, merchant).expect(200);
      expect(body).toMatchObject({
        name,
        chain_id: expected.chainFamily === 'EVM' ? expected.chainId : null,
        confirmations: CONFIRMATIONS,
        tokens: CURRENCIES.flatMap((currency) => {
          const token = chainOf(name).tokens[currency];
          return token
            ? [
                {
                  currency,
                  contract: token.contract,
                  decimals: expected.tokens[currency]?.decimals,
                },
              ]
            : [];
        }),
      });
      for (const currency of CURRENCIES) {
        const token = chainOf(name).tokens[currency];
        if (!token) continue;
        // What the watcher checks the configured decimals against: the contract's own answer.
        const actual = await adapters.adapterFor(name).getTokenDecimals(token.contract);
        expect({ name, currency, decimals: actual }).toEqual({
          name,
          currency,
          decimals: expected.tokens[currency]?.decimals,
        });
      }
      const devnet = devnets.get(name);
      if (devnet) {
        expect(Number(await devnet.provider.send('eth_chainId', []))).toBe(expected.chainId);
      }
    }
    // USDT and USDC on BSC are the registry's 18-decimal tokens.
    expect(PAIRS.filter((pair) => pair.decimals === 18)).toEqual([
      { network: 'BSC', currency: 'USDT', decimals: 18 },
      { network: 'BSC', currency: 'USDC', decimals: 18 },
    ]);
  });

  it('pays every sandbox pair too: the mainnet table has each with the same decimals', () => {
    const sandboxPairs = NETWORK_NAMES.flatMap((network) =>
      CURRENCIES.flatMap((currency) => {
        const token = TESTNET_NETWORKS[network].tokens[currency];
        return token ? [{ network, currency, decimals: token.decimals }] : [];
      }),
    );
    expect(PAIRS).toEqual(expect.arrayContaining(sandboxPairs));
  });

  it.each(PAIRS)(
    '$network $currency ($decimals decimals): an exact payment waits for confirmations, then pays the session and credits the merchant',
    async (pair) => {
      const chain = chainOf(pair.network);
      const token = chain.tokens[pair.currency] as { contract: string; decimals: number };
      const merchant = await api.createMerchant();
      const session = await createSession(api, merchant, {
        pricing_amount: PRICE,
        currency: pair.currency,
        network: pair.network,
      });
      expect(session).toMatchObject({
        status: 'Pending',
        amount: PRICE,
        currency: pair.currency,
        network: pair.network,
        currency_contract: token.contract,
      });

      const txHash = await chain.pay(pair.currency, session.pay_address, PRICE);
      await watcher.scan(pair.network);
      const seen = await readSession(api, merchant, session.id);
      expect(seen).toMatchObject({ status: 'Pending', amount_received: '0' });
      expect(seen.transactions).toEqual([
        expect.objectContaining({
          amount: PRICE,
          status: 'Pending',
          tx_hash: txHash,
          network: pair.network,
        }),
      ]);

      await chain.mine(CONFIRMATIONS - 1);
      const paid = await scanUntilPaid(merchant, session);
      expect(paid).toMatchObject({
        status: 'Paid',
        amount_received: PRICE,
        fee_amount: FEE,
        net_amount: NET,
      });
      expect(paid.transactions).toEqual([
        expect.objectContaining({ status: 'Confirmed', tx_hash: txHash, network: pair.network }),
      ]);
      const rows = await transferRows(session.id);
      expect(rows).toEqual([
        {
          network: pair.network,
          currency: pair.currency,
          token_contract: expect.any(String),
          to_address: expect.any(String),
          tx_hash: txHash,
          amount: PRICE,
          amount_base_units: baseUnitsOf(PRICE, pair.decimals),
          status: 'Confirmed',
        },
      ]);
      expect(rows[0].token_contract.toLowerCase()).toBe(token.contract.toLowerCase());
      expect(rows[0].to_address.toLowerCase()).toBe(session.pay_address.toLowerCase());
      expect(await balances(merchant)).toEqual([
        {
          currency: pair.currency,
          network: pair.network,
          sub_merchant_code: null,
          available: NET,
          held: '0',
        },
      ]);
    },
  );

  it.each(PAIRS.filter((pair) => pair.decimals === 18))(
    '$network $currency: amounts down to the 18th decimal are credited to the last base unit',
    async (pair) => {
      const chain = chainOf(pair.network);
      const merchant = await api.createMerchant();
      const session = await createSession(api, merchant, {
        pricing_amount: PRICE,
        currency: pair.currency,
        network: pair.network,
      });
      // One base unit over the price, split so that one part uses all 18 decimals.
      const first = await chain.pay(pair.currency, session.pay_address, '12.000000000000000001');
      const second = await chain.pay(pair.currency, session.pay_address, '0.345678');
      await chain.mine(CONFIRMATIONS - 1);

      const paid = await scanUntilPaid(merchant, session);
      expect(paid).toMatchObject({
        status: 'Paid',
        amount_received: '12.345678000000000001',
        fee_amount: FEE,
        net_amount: '12.222221000000000001',
      });
      expect(
        (await transferRows(session.id)).map((row) => ({
          tx_hash: row.tx_hash,
          amount: row.amount,
          amount_base_units: row.amount_base_units,
          status: row.status,
        })),
      ).toEqual([
        {
          tx_hash: first,
          amount: '12.000000000000000001',
          amount_base_units: '12000000000000000001',
          status: 'Confirmed',
        },
        {
          tx_hash: second,
          amount: '0.345678',
          amount_base_units: '345678000000000000',
          status: 'Confirmed',
        },
      ]);
      expect(await balances(merchant)).toEqual([
        {
          currency: pair.currency,
          network: pair.network,
          sub_merchant_code: null,
          available: '12.222221000000000001',
          held: '0',
        },
      ]);
    },
  );

  it('keeps the ledger balanced and every balance equal to its sessions, per network', async () => {
    const [unbalanced] = await api.dataSource.query(
      `SELECT count(*)::int AS count FROM (
         SELECT entry_id FROM ledger_lines GROUP BY entry_id HAVING sum(amount) <> 0) t`,
    );
    expect(unbalanced.count).toBe(0);
    const rows: Array<{ network: string; ledger: string; sessions: string }> =
      await api.dataSource.query(
        `SELECT s.network,
                (SELECT -COALESCE(sum(l.amount), 0) FROM ledger_lines l
                  WHERE l.merchant_id = ANY($1) AND l.network = s.network)::text AS ledger,
                sum(s.net_amount)::text AS sessions
           FROM checkout_sessions s WHERE s.merchant_id = ANY($1)
          GROUP BY s.network ORDER BY s.network`,
        [api.merchantIds],
      );
    expect(rows.map((row) => row.network).sort()).toEqual([...NETWORK_NAMES].sort());
    for (const row of rows) {
      expect({ network: row.network, ledger: new Decimal(row.ledger).toFixed() }).toEqual({
        network: row.network,
        ledger: new Decimal(row.sessions).toFixed(),
      });
    }
  });
});
