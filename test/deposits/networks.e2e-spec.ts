import request from 'supertest';
import { CURRENCIES, NetworkRegistry } from '@app/chains';
import { WatcherStatusRepository } from '@app/deposits';
import { TestApi, TestMerchant } from '../support/test-app';

const NETWORKS = '/v1/networks';
const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

interface NetworkBody {
  name: string;
  watched: boolean;
  watcher: {
    health: string;
    chain_head: number | null;
    scanned_block: number | null;
    lag_blocks: number | null;
    last_success_at: string | null;
    last_failure_at: string | null;
    last_error: string | null;
    consecutive_failures: number;
  };
}

/*
 * GET /v1/networks: the registry of this environment (the sandbox's testnets) with the deposit
 * watcher's health per network. The worker's reports are written here through
 * WatcherStatusRepository, as the deposit watcher writes them after each tick.
 */
describe('Networks and watcher health (GET /v1/networks)', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let status: WatcherStatusRepository;
  const previousWatchNetworks = process.env.WATCH_NETWORKS;

  beforeAll(async () => {
    // The API reads WATCH_NETWORKS as the worker does: these three are watched, the rest not.
    process.env.WATCH_NETWORKS = 'ETHEREUM,BSC,TRON';
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Network Watcher Shop' });
    status = api.app.get(WatcherStatusRepository);
    // Reports left by earlier suites' watchers: this suite starts from none.
    await api.dataSource.query(`DELETE FROM watcher_status`);
  });

  afterAll(async () => {
    await api?.close();
    if (previousWatchNetworks === undefined) delete process.env.WATCH_NETWORKS;
    else process.env.WATCH_NETWORKS = previousWatchNetworks;
  });

  const network = async (name: string): Promise<NetworkBody> =>
    (await api.get(`${NETWORKS}/${name}`, merchant).expect(200)).body as NetworkBody;

  it('lists every network of the registry with its tokens, decimals and confirmations', async () => {
    const { body } = await api.get(NETWORKS, merchant).expect(200);
    const registry = api.app.get(NetworkRegistry).list();
    expect(body.map((item: NetworkBody) => item.name)).toEqual(registry.map((n) => n.name));
    for (const [index, config] of registry.entries()) {
      expect(body[index]).toMatchObject({
        name: config.name,
        display_name: config.displayName,
        chain_family: config.chainFamily,
        chain_id: config.chainFamily === 'EVM' ? config.chainId : null,
        livemode: false,
        confirmations: config.confirmations,
        tokens: CURRENCIES.flatMap((currency) => {
          const token = config.tokens[currency];
          return token ? [{ currency, contract: token.contract, decimals: token.decimals }] : [];
        }),
      });
    }
    // The whole of one network before the watcher ever reported on it: watched, so down.
    expect(body.find((item: NetworkBody) => item.name === 'ETHEREUM')).toEqual({
      name: 'ETHEREUM',
      display_name: 'Ethereum Sepolia',
      chain_family: 'EVM',
      chain_id: 11155111,
      livemode: false,
      tokens: [
        { currency: 'USDT', contract: '0xaA8E23Fb1079EA71e0a56F48a2aA51851D8433D0', decimals: 6 },
        { currency: 'USDC', contract: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238', decimals: 6 },
      ],
      confirmations: 12,
      average_block_time_seconds: 12,
      watched: true,
      watcher: {
        health: 'down',
        chain_head: null,
        scanned_block: null,
        lag_blocks: null,
        last_success_at: null,
        last_failure_at: null,
        last_error: null,
        consecutive_failures: 0,
      },
    });
    const tron = body.find((item: NetworkBody) => item.name === 'TRON');
    expect(tron).toMatchObject({
      chain_family: 'TRON',
      chain_id: null,
      average_block_time_seconds: 3,
    });
    const bsc = body.find((item: NetworkBody) => item.name === 'BSC');
    expect(bsc.tokens.map((token: { decimals: number }) => token.decimals)).toEqual([18, 18]);
    expect(bsc.average_block_time_seconds).toBe(0.75);
    // Not in WATCH_NETWORKS.
    expect(body.find((item: NetworkBody) => item.name === 'POLYGON')).toMatchObject({
      watched: false,
      watcher: { health: 'not_watched' },
    });
  });

  it('refuses a request without a valid API key', async () => {
    for (const authorization of [undefined, `Bearer sk_test_${'A'.repeat(43)}`]) {
      for (const path of [NETWORKS, `${NETWORKS}/ETHEREUM`]) {
        const call = request(api.http).get(path);
        const response = await (
          authorization ? call.set('Authorization', authorization) : call
        ).expect(401);
        expect(response.body.error).toMatchObject({
          type: 'authentication_error',
          code: 'authentication_failed',
        });
      }
    }
  });

  it("shows the watcher's head and lag after a committed tick: operational", async () => {
    await status.recordSuccess('ETHEREUM', 7_000_100, 7_000_090);
    const ethereum = await network('ETHEREUM');
    expect(ethereum.watcher).toEqual({
      health: 'operational',
      chain_head: 7_000_100,
      scanned_block: 7_000_090,
      lag_blocks: 10,
      last_success_at: expect.stringMatching(ISO_UTC),
      last_failure_at: null,
      last_error: null,
      consecutive_failures: 0,
    });
    expect(Date.now() - Date.parse(ethereum.watcher.last_success_at!)).toBeLessThan(60_000);
  });

  it('a network whose RPC fails turns delayed, then down, while another stays operational', async () => {
    await status.recordSuccess('ETHEREUM', 7_000_200, 7_000_200);
    await status.recordSuccess('BSC', 50_000_000, 50_000_000);
    const reason =
      'eth_blockNumber: request to https://bsc.example-rpc.com/v1/9aa3d95b3bc440fa88ea12eaa4456161 ' +
      'failed: node unreachable (ECONNREFUSED)';
    // One failure right after a success is a blip the loop retries.
    await status.recordFailure('BSC', reason);
    expect((await network('BSC')).watcher.health).toBe('operational');
    await status.recordFailure('BSC', reason);
    await status.recordFailure('BSC', reason);
    const delayed = await network('BSC');
    expect(delayed.watcher).toEqual({
      health: 'delayed',
      chain_head: 50_000_000,
      scanned_block: 50_000_000,
      lag_blocks: 0,
      last_success_at: expect.stringMatching(ISO_UTC),
      last_failure_at: expect.stringMatching(ISO_UTC),
      // Short, and never the URL or its key.
      last_error: 'eth_blockNumber: request to [url] failed: node unreachable (ECONNREFUSED)',
      consecutive_failures: 3,
    });
    // Still failing, and the last success is now older than max(2 min, 10 blocks).
    await api.dataSource.query(
      `UPDATE watcher_status SET last_success_at = now() - interval '3 minutes',
                                 last_failure_at = now() WHERE network = 'BSC'`,
    );
    expect((await network('BSC')).watcher.health).toBe('down');
    expect((await network('ETHEREUM')).watcher.health).toBe('operational');

    // The RPC is back: the next committed tick makes it operational, the failure stays on record.
    await status.recordSuccess('BSC', 50_000_300, 50_000_300);
    const recovered = await network('BSC');
    expect(recovered.watcher).toMatchObject({
      health: 'operational',
      consecutive_failures: 0,
      last_error: 'eth_blockNumber: request to [url] failed: node unreachable (ECONNREFUSED)',
    });
    expect(Date.parse(recovered.watcher.last_failure_at!)).toBeLessThan(
      Date.parse(recovered.watcher.last_success_at!),
    );
  });

  it('a network that never had a committed tick, only failures, is down', async () => {
    await status.recordFailure('TRON', 'TRON getNowBlock: HTTP 503');
    expect((await network('TRON')).watcher).toEqual({
      health: 'down',
      chain_head: null,
      scanned_block: null,
      lag_blocks: null,
      last_success_at: null,
      last_failure_at: expect.stringMatching(ISO_UTC),
      last_error: 'TRON getNowBlock: HTTP 503',
      consecutive_failures: 1,
    });
  });

  it('a watcher far behind the head (lag > confirmations + 10) is delayed until it catches up', async () => {
    await status.recordSuccess('ETHEREUM', 7_001_000, 7_000_900);
    expect((await network('ETHEREUM')).watcher).toMatchObject({
      health: 'delayed',
      lag_blocks: 100,
    });
    await status.recordSuccess('ETHEREUM', 7_001_001, 7_001_001);
    expect((await network('ETHEREUM')).watcher).toMatchObject({
      health: 'operational',
      lag_blocks: 0,
    });
  });

  it('a head that stops moving while ticks succeed (a stuck node) is delayed until it moves', async () => {
    await status.recordSuccess('TRON', 60_000_000, 60_000_000);
    // The head last moved three minutes ago (TRON makes 60 blocks in that time)...
    await api.dataSource.query(
      `UPDATE watcher_status SET head_moved_at = now() - interval '3 minutes'
        WHERE network = 'TRON'`,
    );
    // ...and the ticks since, each a success, keep seeing the same block.
    await status.recordSuccess('TRON', 60_000_000, 60_000_000);
    expect((await network('TRON')).watcher).toMatchObject({ health: 'delayed', lag_blocks: 0 });

    await status.recordSuccess('TRON', 60_000_001, 60_000_001);
    expect((await network('TRON')).watcher.health).toBe('operational');
  });

  it('a network not in WATCH_NETWORKS is not_watched, with whatever was reported on it', async () => {
    await status.recordSuccess('POLYGON', 12_345_678, 12_345_678);
    const polygon = await network('POLYGON');
    expect(polygon).toMatchObject({
      watched: false,
      watcher: { health: 'not_watched', chain_head: 12_345_678, lag_blocks: 0 },
    });
  });

  it('gives one network by name, the same as in the list, and 404 for an unknown name', async () => {
    const { body: list } = await api.get(NETWORKS, merchant).expect(200);
    const ethereum = await network('ETHEREUM');
    expect(list.find((item: NetworkBody) => item.name === 'ETHEREUM')).toEqual(ethereum);
    for (const name of ['DOGECOIN', 'ethereum', 'toString']) {
      const response = await api.get(`${NETWORKS}/${name}`, merchant).expect(404);
      expect(response.body).toEqual({
        error: {
          type: 'invalid_request_error',
          code: 'resource_missing',
          message: `No such network: '${name}'.`,
          param: 'name',
          request_id: expect.stringMatching(/^req_/),
        },
      });
    }
  });

  it('answers every merchant alike', async () => {
    const other = await api.createMerchant({ name: 'Another Shop' });
    const mine = await api.get(NETWORKS, merchant).expect(200);
    const theirs = await api.get(NETWORKS, other).expect(200);
    expect(theirs.body).toEqual(mine.body);
  });
});
