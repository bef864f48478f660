import type { AddressInfo } from 'node:net';
import { TestApi } from './test-app';

/**
 * The real API listening on a loopback port, for clients that speak HTTP themselves (the SDK, the
 * example shop). `url` has no trailing slash.
 */
export async function startLiveApi(): Promise<{ api: TestApi; url: string }> {
  const api = await TestApi.start();
  await api.app.listen(0, '127.0.0.1');
  const { port } = api.app.getHttpServer().address() as AddressInfo;
  return { api, url: `http://127.0.0.1:${port}` };
}
