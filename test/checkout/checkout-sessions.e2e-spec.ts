import { insertSessionTransaction } from '../support/session-transactions';
import { TestApi, TestMerchant } from '../support/test-app';

const SESSIONS = '/v1/checkout/sessions';
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const validBody = {
  pricing_amount: '49.99',
  pricing_currency: 'USD',
  currency: 'USDT',
  network: 'TRON',
  client_reference_id: 'order_1042',
  success_url: 'https://shop.example.com/thanks',
  cancel_url: 'https://shop.example.com/cart',
};

describe('Checkout sessions: create and get', () => {
  let api: TestApi;
  let merchant: TestMerchant;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({
      name: 'Acme Shop',
      logoUrl: 'https://acme.example/logo.png',
    });
  });

  afterAll(() => api.close());

  it('creates a session with every field of the spec', async () => {
    const before = Date.now();
    const response = await api.post(SESSIONS, merchant, validBody).expect(201);
    const session = response.body;
    expect(session).toEqual({
      id: expect.stringMatching(/^cs_[0-9A-Za-z]{22}$/),
      url: `http://pay.test.example/checkout/${session.id}`,
      status: 'Pending',
      livemode: false,
      amount: '49.99',
      amount_received: '0',
      fee_amount: '0',
      net_amount: '0',
      currency: 'USDT',
      network: 'TRON',
      chain_family: 'TRON',
      currency_contract: expect.stringMatching(/^T[1-9A-HJ-NP-Za-km-z]{33}$/),
      pay_address: expect.stringMatching(/^T[1-9A-HJ-NP-Za-km-z]{33}$/),
      detection_rpc_url: expect.stringMatching(/^https:\/\//),
      pricing: { amount: '49.99', currency: 'USD', exchange_rate: '1.00000000' },
      client_reference_id: 'order_1042',
      success_url: 'https://shop.example.com/thanks',
      cancel_url: 'https://shop.example.com/cart',
      merchant_name: 'Acme Shop',
      merchant_logo_url: 'https://acme.example/logo.png',
      sub_merchant_code: null,
      created_at: expect.stringMatching(ISO_UTC),
      expires_at: expect.stringMatching(ISO_UTC),
      transactions: [],
    });
    expect(response.headers['request-id']).toMatch(/^req_/);
    const created = Date.parse(session.created_at);
    expect(created).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(session.expires_at) - created).toBe(60 * 60 * 1000);
  });

  it('gives EVM sessions a checksummed 0x pay address and the token contract of the network', async () => {
    const { body } = await api
      .post(SESSIONS, merchant, { ...validBody, network: 'ETHEREUM', currency: 'USDC' })
      .expect(201);
    expect(body.chain_family).toBe('EVM');
    expect(body.pay_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(body.pay_address).not.toBe(body.pay_address.toLowerCase());
    expect(body.currency_contract).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });

  it('gives every session a fresh pay address', async () => {
    const addresses = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const { body } = await api
        .post(SESSIONS, merchant, { ...validBody, network: 'BSC' })
        .expect(201);
      addresses.add(body.pay_address);
    }
    expect(addresses.size).toBe(5);
  });

  it('omits optional fields as null and converts other pricing currencies', async () => {
    const { body } = await api
      .post(SESSIONS, merchant, {
        pricing_amount: '100',
        pricing_currency: 'EUR',
        currency: 'USDT',
        network: 'BSC',
      })
      .expect(201);
    expect(body).toMatchObject({
      amount: '108',
      pricing: { amount: '100', currency: 'EUR', exchange_rate: '1.08000000' },
      client_reference_id: null,
      success_url: null,
      cancel_url: null,
    });
  });

  it.each([
    ['TRON', 'USDC'],
    ['BASE', 'USDT'],
  ])('refuses %s/%s, a pair that does not exist, with 422', async (network, currency) => {
    const before = await api.count('checkout_sessions');
    const { body } = await api
      .post(SESSIONS, merchant, { ...validBody, network, currency })
      .expect(422);
    expect(body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'unsupported_network_currency',
      param: 'currency',
      request_id: expect.stringMatching(/^req_/),
    });
    expect(await api.count('checkout_sessions')).toBe(before);
  });

  describe('bad input is a 400 naming the field and creates nothing', () => {
    const cases: Array<[string, Record<string, unknown>, string, string]> = [
      ['negative amount', { pricing_amount: '-1' }, 'pricing_amount', 'parameter_invalid'],
      ['zero amount', { pricing_amount: '0' }, 'pricing_amount', 'parameter_invalid'],
      ['exponent', { pricing_amount: '1e3' }, 'pricing_amount', 'parameter_invalid'],
      ['too many decimals', { pricing_amount: '1.0000001' }, 'pricing_amount', 'parameter_invalid'],
      [
        'huge amount',
        { pricing_amount: '99999999999999999999' },
        'pricing_amount',
        'parameter_invalid',
      ],
      [
        'amount above the session maximum',
        { pricing_amount: '10000000.01' },
        'pricing_amount',
        'parameter_invalid',
      ],
      [
        'amount below the session minimum',
        { pricing_amount: '0.001' },
        'pricing_amount',
        'parameter_invalid',
      ],
      [
        'number instead of string',
        { pricing_amount: 49.99 },
        'pricing_amount',
        'parameter_invalid',
      ],
      ['missing amount', { pricing_amount: undefined }, 'pricing_amount', 'parameter_missing'],
      ['unknown settlement currency', { currency: 'DAI' }, 'currency', 'parameter_invalid'],
      ['lower-case currency', { currency: 'usdt' }, 'currency', 'parameter_invalid'],
      ['unknown network', { network: 'SOLANA' }, 'network', 'parameter_invalid'],
      ['missing network', { network: undefined }, 'network', 'parameter_missing'],
      [
        'unknown pricing currency',
        { pricing_currency: 'XYZ' },
        'pricing_currency',
        'parameter_invalid',
      ],
      [
        'pricing currency of wrong type',
        { pricing_currency: 5 },
        'pricing_currency',
        'parameter_invalid',
      ],
      [
        'javascript: success_url',
        { success_url: 'javascript:alert(1)' },
        'success_url',
        'parameter_invalid',
      ],
      [
        'ftp cancel_url',
        { cancel_url: 'ftp://shop.example.com' },
        'cancel_url',
        'parameter_invalid',
      ],
      ['relative success_url', { success_url: '/thanks' }, 'success_url', 'parameter_invalid'],
      [
        'client_reference_id too long',
        { client_reference_id: 'x'.repeat(256) },
        'client_reference_id',
        'parameter_invalid',
      ],
      [
        'client_reference_id as object',
        { client_reference_id: { a: 1 } },
        'client_reference_id',
        'parameter_invalid',
      ],
      ['unknown field', { amount: '10' }, 'amount', 'parameter_invalid'],
    ];

    it.each(cases)('%s', async (_name, change, param, code) => {
      const before = await api.count('checkout_sessions');
      const { body } = await api.post(SESSIONS, merchant, { ...validBody, ...change }).expect(400);
      expect(body).toEqual({
        error: {
          type: 'invalid_request_error',
          code,
          message: expect.any(String),
          param,
          request_id: expect.stringMatching(/^req_/),
        },
      });
      expect(await api.count('checkout_sessions')).toBe(before);
    });

    it('a body that is not an object', async () => {
      const { body } = await api.post(SESSIONS, merchant, [validBody]).expect(400);
      expect(body.error.code).toMatch(/^parameter_/);
    });
  });

  it('reads a session back with the same body it was created with', async () => {
    const created = await api.post(SESSIONS, merchant, validBody).expect(201);
    const read = await api.get(`${SESSIONS}/${created.body.id}`, merchant).expect(200);
    expect(read.body).toEqual(created.body);
    // Live state: no ETag a client could revalidate a stale session against (docs/decisions.md).
    expect(read.headers.etag).toBeUndefined();
    expect(created.headers.etag).toBeUndefined();
  });

  it('shows detected transactions in chain order with exact amounts', async () => {
    const { body: session } = await api.post(SESSIONS, merchant, validBody).expect(201);
    await insertSessionTransaction(api.dataSource, {
      id: 'ctx_b',
      sessionId: session.id,
      txHash: 'bbbb',
      amount: '0.000001',
      status: 'Pending',
      blockNumber: 11,
    });
    await insertSessionTransaction(api.dataSource, {
      id: 'ctx_a',
      sessionId: session.id,
      txHash: 'aaaa',
      logIndex: 3,
      amount: '49.989999',
      blockNumber: 10,
    });
    const { body } = await api.get(`${SESSIONS}/${session.id}`, merchant).expect(200);
    expect(body.transactions).toEqual([
      {
        amount: '49.989999',
        created_at: expect.stringMatching(ISO_UTC),
        network: 'TRON',
        status: 'Confirmed',
        tx_hash: 'aaaa',
      },
      {
        amount: '0.000001',
        created_at: expect.stringMatching(ISO_UTC),
        network: 'TRON',
        status: 'Pending',
        tx_hash: 'bbbb',
      },
    ]);
  });

  it("answers 404 for an unknown id and for another merchant's session alike", async () => {
    const other = await api.createMerchant({ name: 'Other Shop' });
    const { body: theirs } = await api.post(SESSIONS, other, validBody).expect(201);
    const foreign = await api.get(`${SESSIONS}/${theirs.id}`, merchant).expect(404);
    const unknown = await api.get(`${SESSIONS}/cs_0000000000000000000000`, merchant).expect(404);
    expect(foreign.body.error).toMatchObject({ code: 'resource_missing', param: 'id' });
    expect(unknown.body.error).toMatchObject({ code: 'resource_missing', param: 'id' });
    expect(foreign.body.error.message.replace(theirs.id, 'ID')).toBe(
      unknown.body.error.message.replace('cs_0000000000000000000000', 'ID'),
    );
  });
});
