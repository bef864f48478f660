import { request as httpRequest } from 'node:http';
import { buildApp } from '../support/built-apps';
import { buildConsole } from '../support/console-build';
import { freePort } from '../support/private-services';
import { SpawnedApp, waitForHttp } from '../support/spawned-app';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function get(port: number, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, path, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString('latin1'),
        }),
      );
    });
    request.on('error', reject);
    request.end();
  });
}

/*
 * The console as `npm run build` and `npm start` serve it: the built API process finds the
 * built app (dist/console) from its own place under dist/apps/api, which the suites running the
 * API from its sources never exercise (it answered 503 "not built" there once).
 */
describe('The built API serves the built console', () => {
  let port: number;

  beforeAll(async () => {
    await Promise.all([buildConsole(), buildApp('api')]);
    port = await freePort();
    const app = SpawnedApp.start('api', { PORT: String(port) });
    await waitForHttp(app, port, '/health/live');
  });

  afterAll(() => SpawnedApp.killAll());

  it('answers /console with the app and its scripts, gzipped when asked', async () => {
    const page = await get(port, '/console/sign-in');
    expect({ status: page.status, type: page.headers['content-type'] }).toEqual({
      status: 200,
      type: expect.stringMatching(/^text\/html/),
    });
    const script = /<script[^>]+src="(\/console\/assets\/[^"]+\.js)"/.exec(page.body)?.[1];
    expect(script).toEqual(expect.any(String));

    const plain = await get(port, script!);
    const gzipped = await get(port, script!, { 'Accept-Encoding': 'gzip' });
    expect([plain.status, gzipped.status]).toEqual([200, 200]);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.body.length).toBeLessThan(plain.body.length / 2);
  });

  it('leaves the API JSON uncompressed', async () => {
    const answer = await get(port, '/console/api/session', { 'Accept-Encoding': 'gzip' });
    expect(answer.status).toBe(401);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(answer.body).error.code).toBe('authentication_failed');
  });
});
