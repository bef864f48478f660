import type { Socket } from 'net';
import { ApiKeyRevocations, ApiKeysService } from '@app/auth';
import { APP_CONFIG, AppConfig } from '@app/common';
import { TestApi } from '../support/test-app';
import { waitFor } from '../support/wait-for';

/** The listener's pg client, reached into only to make its connection go silent. */
function socketOf(revocations: ApiKeyRevocations): Socket {
  const client = (revocations as unknown as { client: { connection: { stream: Socket } } | null })
    .client;
  if (!client) throw new Error('not listening');
  return client.connection.stream;
}

describe('API key revocation listener: a silently dead connection is noticed', () => {
  let api: TestApi;
  let revocations: ApiKeyRevocations;

  beforeAll(async () => {
    api = await TestApi.start();
    // Its own listener with a short health check, next to the app's (left alone).
    revocations = new ApiKeyRevocations(
      api.app.get(ApiKeysService),
      api.app.get<AppConfig>(APP_CONFIG),
      { healthCheckIntervalMs: 100, healthCheckTimeoutMs: 500 },
    );
    await revocations.onModuleInit();
  });

  afterAll(async () => {
    await revocations?.onModuleDestroy();
    await api.close();
  });

  it('reconnects and forgets the cache when the connection stops answering without closing', async () => {
    expect(revocations.listening).toBe(true);
    const deadPid = revocations.backendPid;
    const keys = api.app.get(ApiKeysService);
    const forgetAll = jest.spyOn(keys, 'forgetAll');
    // As a NAT or load balancer dropping the connection's state: no packet arrives any more,
    // and neither `error` nor `end` fires.
    socketOf(revocations).pause();
    await waitFor(
      async () => revocations.listening && revocations.backendPid !== deadPid,
      30_000,
      'the listener noticed and reconnected',
    );
    expect(forgetAll).toHaveBeenCalled();
    await api.dataSource.query(`SELECT pg_terminate_backend($1)`, [deadPid]);
  });
});
