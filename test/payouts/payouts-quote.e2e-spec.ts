import Decimal from 'decimal.js';
import { ApiKeysService, MerchantsService } from '@app/auth';
import { NetworkRegistry } from '@app/chains';
import { creditBalance } from '../support/ledger-credit';
import {
  balanceOf,
  cleanUpPayouts,
  PAYOUTS,
  postPayout,
  randomEvmAddress,
  randomTronAddress,
} from '../support/payouts-api';
import { TestApi, TestMerchant } from '../support/test-app';

// Read when the app starts: set before TestApi.start(), given back right after.
const REVIEW_ENV = { PAYOUT_REVIEW_THRESHOLD: '100', PAYOUT_REVIEW_THRESHOLDS: 'ETHEREUM:USDT=50' };
const QUOTE = `${PAYOUTS}/quote`;

type Quote = {
  amount: string;
  fee: string;
  net_amount: string;
  review_required: boolean;
  review_reasons: string[];
  destination: Record<string, unknown>;
  balance_after: string;
};

describe('Payouts: quote (POST /v1/payouts/quote)', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let careless: TestMerchant;

  /** Everything a quote must not write, for the merchant. */
  const footprint = async (who: TestMerchant) =>
    Promise.all([
      api.count('payouts', 'merchant_id = $1', [who.id]),
      api.count('ledger_lines', 'merchant_id = $1', [who.id]),
      api.count('events', 'merchant_id = $1', [who.id]),
      api.count('idempotency_keys', 'merchant_id = $1', [who.id]),
    ]);

  const quote = async (who: TestMerchant, body: Record<string, unknown>) => {
    const before = await footprint(who);
    const response = await api.post(QUOTE, who, body).expect(200);
    expect(await footprint(who)).toEqual(before);
    return response.body as Quote;
  };

  /** Quotes, then creates the same body: the payout is what the quote said. */
  const quoteThenCreate = async (who: TestMerchant, body: Record<string, unknown>) => {
    const quoted = await quote(who, body);
    const created = (await postPayout(api, who, body).expect(201)).body as Record<string, unknown>;
    expect(created).toMatchObject({
      amount: quoted.amount,
      fee: quoted.fee,
      net_amount: quoted.net_amount,
      to_address: quoted.destination.address,
      pending_reason: quoted.review_required ? `review_${quoted.review_reasons[0]}` : null,
    });
    const balance = await balanceOf(api, who, body.network as string, body.currency as string);
    expect(balance?.available).toBe(quoted.balance_after);
    return { quoted, created };
  };

  const complete = (id: unknown) =>
    api.dataSource.query(
      `UPDATE payouts SET status = 'Completed', completed_at = now(), tx_hash = $2 WHERE id = $1`,
      [id, '0x' + 'cd'.repeat(32)],
    );

  beforeAll(async () => {
    const previous = Object.fromEntries(Object.keys(REVIEW_ENV).map((k) => [k, process.env[k]]));
    Object.assign(process.env, REVIEW_ENV);
    try {
      api = await TestApi.start();
    } finally {
      for (const [name, value] of Object.entries(previous)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    merchant = await api.createMerchant({ name: 'Quoting' });
    careless = await api.createMerchant({ name: 'Not reviewing destinations' });
    await api.app.get(MerchantsService).setPayoutPolicy(merchant.id, '0.5', true);
    for (const who of [merchant, careless]) {
      for (const network of ['TRON', 'ETHEREUM']) {
        await creditBalance(api.dataSource, {
          merchantId: who.id,
          network,
          currency: 'USDT',
          amount: '1000',
        });
      }
    }
  });

  afterAll(async () => {
    await cleanUpPayouts(api, [merchant, careless]);
    await api.close();
  });

  it('quotes a first payout to a new destination exactly as the creation then does', async () => {
    const to = randomTronAddress();
    const { quoted } = await quoteThenCreate(merchant, {
      amount: '25.5',
      currency: 'USDT',
      network: 'TRON',
      to_address: to,
    });
    // fee = TRON's fixed 1 + 0.5 % of 25.5 (0.1275)
    expect(quoted).toEqual({
      amount: '25.5',
      fee: '1.1275',
      net_amount: '24.3725',
      currency: 'USDT',
      network: 'TRON',
      review_required: true,
      review_reasons: ['new_destination'],
      destination: {
        address: to,
        valid: true,
        refusal: null,
        checksum_ok: true,
        is_contract: false,
        first_payout_to_it: true,
      },
      balance_after: '974.5',
    });
  });

  it('names both review reasons above the threshold; the payout carries the amount one', async () => {
    const { quoted } = await quoteThenCreate(merchant, {
      amount: '100.000001',
      currency: 'USDT',
      network: 'TRON',
      to_address: randomTronAddress(),
    });
    expect(quoted.review_reasons).toEqual(['amount_above_threshold', 'new_destination']);
  });

  it('needs no review to a destination paid before, and says so', async () => {
    const to = randomEvmAddress().toLowerCase();
    const first = await postPayout(api, merchant, {
      amount: '10',
      currency: 'USDT',
      network: 'ETHEREUM',
      to_address: to,
    }).expect(201);
    await complete(first.body.id);
    const { quoted } = await quoteThenCreate(merchant, {
      amount: '50',
      currency: 'USDT',
      network: 'ETHEREUM',
      to_address: to,
    });
    expect(quoted).toMatchObject({
      fee: '3.25',
      net_amount: '46.75',
      review_required: false,
      review_reasons: [],
      destination: { checksum_ok: true, first_payout_to_it: false, valid: true },
    });
    // The pair threshold (ETHEREUM:USDT=50) applies above 50.
    const above = await quoteThenCreate(merchant, {
      amount: '50.5',
      currency: 'USDT',
      network: 'ETHEREUM',
      to_address: to,
    });
    expect(above.quoted.review_reasons).toEqual(['amount_above_threshold']);
  });

  it('reports a new destination without reviewing it for a merchant that did not ask', async () => {
    const { quoted } = await quoteThenCreate(careless, {
      amount: '5',
      currency: 'USDT',
      network: 'TRON',
      to_address: randomTronAddress(),
    });
    expect(quoted).toMatchObject({
      review_required: false,
      review_reasons: [],
      destination: { first_payout_to_it: true },
    });
  });

  it('answers a negative balance_after where the creation refuses insufficient_balance', async () => {
    const body = {
      amount: '5000',
      currency: 'USDT',
      network: 'TRON',
      to_address: randomTronAddress(),
    };
    const available = (await balanceOf(api, careless, 'TRON', 'USDT'))!.available;
    const quoted = await quote(careless, body);
    expect(quoted.balance_after).toBe(new Decimal(available).minus(5000).toFixed());
    const before = await footprint(careless);
    const refused = await postPayout(api, careless, body).expect(422);
    expect(refused.body.error).toMatchObject({ code: 'insufficient_balance', param: 'amount' });
    expect(await footprint(careless)).toEqual(before);
  });

  it('reports a destination the creation refuses, with its message', async () => {
    const good = randomEvmAddress();
    // Mixed case with one letter's case flipped: the EIP-55 checksum fails.
    const index = [...good].findIndex((char, at) => at > 1 && /[a-fA-F]/.test(char));
    const flipped =
      good[index] === good[index].toLowerCase()
        ? good[index].toUpperCase()
        : good[index].toLowerCase();
    const badChecksum = good.slice(0, index) + flipped + good.slice(index + 1);
    const cases = [
      { network: 'ETHEREUM', to_address: badChecksum, checksum_ok: false, is_contract: false },
      {
        network: 'TRON',
        to_address: api.app.get(NetworkRegistry).token('TRON', 'USDT')!.contract,
        checksum_ok: true,
        is_contract: true,
      },
      {
        network: 'TRON',
        to_address: 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb',
        checksum_ok: true,
        is_contract: false,
      },
    ];
    for (const { network, to_address, checksum_ok, is_contract } of cases) {
      const body = { amount: '20', currency: 'USDT', network, to_address };
      const quoted = await quote(merchant, body);
      const refused = await postPayout(api, merchant, body).expect(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_address', param: 'to_address' });
      expect(quoted.destination).toMatchObject({
        valid: false,
        refusal: refused.body.error.message,
        checksum_ok,
        is_contract,
      });
      expect(quoted).toMatchObject({
        fee: network === 'TRON' ? '1.1' : '3.1',
        net_amount: network === 'TRON' ? '18.9' : '16.9',
      });
    }
  });

  it('answers the errors of the amount and the pair as the creation does', async () => {
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ amount: '0.5', currency: 'USDT', network: 'TRON' }, 400, 'parameter_invalid'],
      [{ amount: 'ten', currency: 'USDT', network: 'TRON' }, 400, 'parameter_invalid'],
      [{ amount: '1', currency: 'USDT', network: 'TRON' }, 400, 'parameter_invalid'],
    ];
    for (const [fields, status, code] of cases) {
      const body = { ...fields, to_address: randomTronAddress() };
      const quoted = await api.post(QUOTE, merchant, body).expect(status);
      const created = await postPayout(api, merchant, body).expect(status);
      expect(quoted.body.error).toMatchObject({ code, param: created.body.error.param });
      expect(quoted.body.error.message).toBe(created.body.error.message);
    }
  });

  it('needs payouts:write (a read-only key learns no balance), and no Idempotency-Key', async () => {
    const keys = api.app.get(ApiKeysService);
    const body = {
      amount: '20',
      currency: 'USDT',
      network: 'TRON',
      to_address: randomTronAddress(),
    };
    for (const [scopes, status] of [
      [['payouts:write'], 200],
      [['payouts:read'], 403],
      [['payouts:read', 'balances:read'], 403],
      [['balances:read'], 403],
    ] as const) {
      const key = await keys.create({ merchantId: merchant.id, scopes });
      const response = await api.post(QUOTE, { ...merchant, apiKey: key.api_key }, body);
      expect(response.status).toBe(status);
      if (status === 403) expect(response.body.error.code).toBe('insufficient_scope');
    }
  });
});
