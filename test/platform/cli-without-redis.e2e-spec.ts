import { once } from 'node:events';
import { AddressInfo, createServer, Server } from 'node:net';
import { Client } from 'pg';
import { CliProcess, CliResult } from '../support/cli-process';

/** The one JSON value a successful command prints, with nothing on stderr (no Redis warning). */
function json(result: CliResult): unknown {
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(result.stdout);
}

/**
 * Commands that only read or write the database work while Redis is down, and open no connection
 * to it: an operator fixing a merchant during a Redis outage must not wait on, or be warned about,
 * a rate limiter and queues the command never uses.
 */
describe('Operator CLI: database-only commands without Redis', () => {
  let cli: CliProcess;
  let database: Client;

  beforeAll(async () => {
    cli = await CliProcess.shared();
    database = new Client({ connectionString: process.env.DATABASE_URL });
    await database.connect();
  });

  afterAll(async () => {
    cli?.remove();
    await database?.end();
  });

  const redisAt = (url: string) => ({ REDIS_URL: url, RATE_LIMIT_REDIS_URL: url });

  // That it does not wait on Redis is proven below by counting connections, not by a stopwatch:
  // a 20-second limit here failed a fresh-clone run at load 13 (20.8 s for start-up and an insert).
  it('merchants:create succeeds with Redis on a closed port', async () => {
    const created = json(
      await cli.runWithEnv(
        redisAt('redis://127.0.0.1:1'),
        'merchants:create',
        '--name',
        'No Redis',
      ),
    ) as { merchant_id: string; api_key: string };
    expect(created.api_key).toMatch(/^sk_test_/);
    const { rows } = await database.query('SELECT name FROM merchants WHERE id = $1', [
      created.merchant_id,
    ]);
    expect(rows).toEqual([{ name: 'No Redis' }]);
  });

  describe('with a listener where Redis should be', () => {
    let server: Server;
    let connections = 0;

    beforeAll(async () => {
      server = createServer((socket) => {
        connections += 1;
        socket.destroy();
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
    });

    afterAll(() => new Promise((resolve) => server.close(resolve)));

    it('opens no connection to it', async () => {
      const redis = redisAt(`redis://127.0.0.1:${(server.address() as AddressInfo).port}`);
      const created = json(
        await cli.runWithEnv(redis, 'merchants:create', '--name', 'Counted'),
      ) as { merchant_id: string };
      json(await cli.runWithEnv(redis, 'keys:create', '--merchant', created.merchant_id));
      json(await cli.runWithEnv(redis, 'merchants:list'));
      json(await cli.runWithEnv(redis, 'payouts:list'));
      expect(connections).toBe(0);
    });
  });
});
