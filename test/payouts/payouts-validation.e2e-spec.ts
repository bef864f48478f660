import { NetworkRegistry } from '@app/chains';
import { creditBalance } from '../support/ledger-credit';
import {
  balanceOf,
  postPayout,
  randomEvmAddress,
  randomTronAddress,
  cleanUpPayouts,
} from '../support/payouts-api';
import { TestApi, TestMerchant } from '../support/test-app';

const EVM_BAD_CHECKSUM = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD'; // EIP-55 vector, last case flipped
const TRON_BAD_CHECKSUM = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv9'; // ...Tv8 is valid
const EVM_ZERO = '0x0000000000000000000000000000000000000000';
const TRON_ZERO = 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb';

describe('Payouts: validation', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  const tronBody = () => ({
    amount: '10',
    currency: 'USDT',
    network: 'TRON',
    to_address: randomTronAddress(),
  });
  const evmBody = () => ({
    amount: '10',
    currency: 'USDT',
    network: 'ETHEREUM',
    to_address: randomEvmAddress(),
  });

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Validated' });
    for (const network of ['TRON', 'ETHEREUM', 'BSC']) {
      await creditBalance(api.dataSource, {
        merchantId: merchant.id,
        network,
        currency: 'USDT',
        amount: '5000000',
      });
    }
  });

  afterAll(async () => {
    await cleanUpPayouts(api, [merchant]);
    await api.close();
  });

  /** Sends the body, expects the refusal, and checks that nothing was created or held. */
  async function refused(
    body: Record<string, unknown>,
    status: number,
    code: string,
    param: string,
  ) {
    const payouts = await api.count('payouts', 'merchant_id = $1', [merchant.id]);
    const balance = await balanceOf(api, merchant, 'TRON', 'USDT');
    const { body: error } = await postPayout(api, merchant, body).expect(status);
    expect(error).toEqual({
      error: {
        type: 'invalid_request_error',
        code,
        message: expect.any(String),
        param,
        request_id: expect.stringMatching(/^req_/),
      },
    });
    expect(await api.count('payouts', 'merchant_id = $1', [merchant.id])).toBe(payouts);
    expect(await balanceOf(api, merchant, 'TRON', 'USDT')).toEqual(balance);
    return error.error as { message: string };
  }

  describe('amount', () => {
    it.each<[string, unknown]>([
      ['a JSON number', 10],
      ['negative', '-10'],
      ['zero', '0'],
      ['an exponent', '1e3'],
      ['7 fractional digits', '10.0000001'],
      ['a leading zero', '010'],
      ['surrounded by spaces', ' 10 '],
      ['empty', ''],
      ['garbage', 'ten'],
      ['above the maximum (1000000)', '1000000.000001'],
      ['below the minimum (1)', '0.999999'],
    ])('%s is a 400 naming amount', async (_name, amount) => {
      await refused({ ...tronBody(), amount }, 400, 'parameter_invalid', 'amount');
    });

    it('missing is a 400 parameter_missing', async () => {
      await refused({ ...tronBody(), amount: undefined }, 400, 'parameter_missing', 'amount');
    });

    it('tells the configured bounds', async () => {
      const error = await refused(
        { ...tronBody(), amount: '1000001' },
        400,
        'parameter_invalid',
        'amount',
      );
      expect(error.message).toBe('amount must be between 1 and 1000000 per payout.');
    });

    it.each([
      ['TRON', '1', '1', tronBody],
      ['ETHEREUM', '3', '3', evmBody],
      ['ETHEREUM', '2.5', '3', evmBody],
    ])(
      'on %s, %s (not more than the fee of %s) is a 400 naming amount',
      async (_network, amount, fee, body) => {
        const error = await refused({ ...body(), amount }, 400, 'parameter_invalid', 'amount');
        expect(error.message).toBe(
          `amount must be greater than the payout fee of ${fee}; the recipient would receive nothing.`,
        );
      },
    );

    it('accepts the bounds themselves and 6 fractional digits', async () => {
      await postPayout(api, merchant, { ...tronBody(), amount: '1000000' }).expect(201);
      await postPayout(api, merchant, { ...tronBody(), amount: '1.000001' }).expect(201);
      const { body } = await postPayout(api, merchant, {
        ...evmBody(),
        amount: '3.000001',
      }).expect(201);
      expect(body).toMatchObject({ amount: '3.000001', fee: '3', net_amount: '0.000001' });
    });
  });

  describe('currency and network', () => {
    it.each<[string, Record<string, unknown>, string, string]>([
      ['an unknown currency', { currency: 'DAI' }, 'currency', 'parameter_invalid'],
      ['a lower-case currency', { currency: 'usdt' }, 'currency', 'parameter_invalid'],
      ['a missing currency', { currency: undefined }, 'currency', 'parameter_missing'],
      ['an unknown network', { network: 'SOLANA' }, 'network', 'parameter_invalid'],
      ['a lower-case network', { network: 'tron' }, 'network', 'parameter_invalid'],
      ['a missing network', { network: undefined }, 'network', 'parameter_missing'],
    ])('%s is a 400', async (_name, change, param, code) => {
      await refused({ ...tronBody(), ...change }, 400, code, param);
    });

    it.each([
      ['TRON', 'USDC', randomTronAddress],
      ['BASE', 'USDT', randomEvmAddress],
    ])(
      '%s/%s, a pair that does not exist, is a 422 naming currency',
      async (network, currency, to) => {
        await refused(
          { amount: '10', currency, network, to_address: to() },
          422,
          'unsupported_network_currency',
          'currency',
        );
      },
    );
  });

  describe('to_address', () => {
    const invalid = (body: Record<string, unknown>) =>
      refused(body, 400, 'invalid_address', 'to_address');

    it.each<[string, () => Record<string, unknown>]>([
      ['garbage on TRON', () => ({ ...tronBody(), to_address: 'not-an-address' })],
      ['garbage on an EVM network', () => ({ ...evmBody(), to_address: 'not-an-address' })],
      ['0x + 39 hex', () => ({ ...evmBody(), to_address: randomEvmAddress().slice(0, -1) })],
      ['a bad EIP-55 checksum', () => ({ ...evmBody(), to_address: EVM_BAD_CHECKSUM })],
      ['a bad base58 checksum on TRON', () => ({ ...tronBody(), to_address: TRON_BAD_CHECKSUM })],
      [
        'a TRON address on an EVM network',
        () => ({ ...evmBody(), to_address: randomTronAddress() }),
      ],
      ['an EVM address on TRON', () => ({ ...tronBody(), to_address: randomEvmAddress() })],
      ['the EVM zero address', () => ({ ...evmBody(), to_address: EVM_ZERO })],
      ['the TRON zero address', () => ({ ...tronBody(), to_address: TRON_ZERO })],
    ])('refuses %s with 400 invalid_address', async (_name, body) => {
      await invalid(body());
    });

    it.each<[string, unknown, string]>([
      ['empty', '', 'parameter_invalid'],
      ['a number', 12345, 'parameter_invalid'],
      ['missing', undefined, 'parameter_missing'],
    ])('%s is a 400 naming to_address', async (_name, value, code) => {
      await refused({ ...tronBody(), to_address: value }, 400, code, 'to_address');
    });

    it('refuses the token contracts of the network, in any case', async () => {
      const registry = api.app.get(NetworkRegistry);
      const usdt = registry.token('ETHEREUM', 'USDT')!.contract;
      const usdc = registry.token('ETHEREUM', 'USDC')!.contract;
      await invalid({ ...evmBody(), to_address: usdt });
      await invalid({ ...evmBody(), to_address: usdt.toLowerCase() });
      // Any token of the network, not only the one being sent.
      await invalid({ ...evmBody(), to_address: usdc });
      await invalid({ ...tronBody(), to_address: registry.token('TRON', 'USDT')!.contract });
    });

    it("refuses a hot wallet's address", async () => {
      const candidate = randomEvmAddress();
      const inserted: unknown[] = await api.dataSource.query(
        `INSERT INTO hot_wallets (network, address) VALUES ('POLYGON', $1)
         ON CONFLICT (network) DO NOTHING RETURNING address`,
        [candidate],
      );
      const [{ address }] = await api.dataSource.query(
        `SELECT address FROM hot_wallets WHERE network = 'POLYGON'`,
      );
      try {
        // A hot wallet's key is the same on every EVM network: refused on BSC too.
        await invalid({ ...evmBody(), network: 'BSC', to_address: address });
        await invalid({ ...evmBody(), network: 'BSC', to_address: address.toLowerCase() });
      } finally {
        if (inserted.length) {
          await api.dataSource.query(`DELETE FROM hot_wallets WHERE network = 'POLYGON'`);
        }
      }
    });

    it("refuses a customer's pay address (it would be credited as a deposit)", async () => {
      const session = (network: string) =>
        api
          .post('/v1/checkout/sessions', merchant, {
            pricing_amount: '10',
            pricing_currency: 'USD',
            currency: 'USDT',
            network,
          })
          .expect(201);
      const { body: evm } = await session('ETHEREUM');
      await invalid({ ...evmBody(), network: 'BSC', to_address: evm.pay_address });
      await invalid({ ...evmBody(), to_address: evm.pay_address.toLowerCase() });
      const { body: tron } = await session('TRON');
      await invalid({ ...tronBody(), to_address: tron.pay_address });
    });
  });

  describe('description, metadata and unknown fields', () => {
    it.each<[string, Record<string, unknown>, string]>([
      ['metadata as an object', { metadata: { user_id: 'u_1' } }, 'metadata'],
      ['metadata as a number', { metadata: 42 }, 'metadata'],
      ['metadata as an array', { metadata: ['a'] }, 'metadata'],
      ['metadata over 4096 characters', { metadata: 'm'.repeat(4097) }, 'metadata'],
      ['description over 500 characters', { description: 'd'.repeat(501) }, 'description'],
      ['description as a number', { description: 7 }, 'description'],
      ['an unknown field', { reference: 'r-1' }, 'reference'],
      ['a fee of its own', { fee: '0' }, 'fee'],
    ])('%s is a 400 naming the field', async (_name, change, param) => {
      await refused({ ...tronBody(), ...change }, 400, 'parameter_invalid', param);
    });

    it('a body that is not an object is a 400', async () => {
      const before = await api.count('payouts', 'merchant_id = $1', [merchant.id]);
      const { body } = await postPayout(api, merchant, [tronBody()] as never).expect(400);
      expect(body.error.code).toBe('parameter_invalid');
      expect(await api.count('payouts', 'merchant_id = $1', [merchant.id])).toBe(before);
    });

    it('accepts the longest description and metadata, and returns them as given', async () => {
      const description = 'd'.repeat(500);
      const metadata = JSON.stringify({ note: 'é'.repeat(4000) }).slice(0, 4096);
      const { body } = await postPayout(api, merchant, {
        ...tronBody(),
        description,
        metadata,
      }).expect(201);
      expect(body).toMatchObject({ description, metadata });
      const { body: minimal } = await postPayout(api, merchant, tronBody()).expect(201);
      expect(minimal).toMatchObject({ description: null, metadata: null });
    });
  });
});
