import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pinoHttp from 'pino-http';
import { pinoHttpOptions } from './logger.module';

const SECRET_KEY = 'sk_test_ThisIsASecretKeyThatMustNeverBeLogged0123';

describe('request logging', () => {
  it('logs the request id, method, url and status, never headers or secret fields', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = pinoHttp(pinoHttpOptions({ logLevel: 'info' }), sink);
    const server = createServer((request, response) => {
      (request as typeof request & { id: string }).id = 'req_fixed';
      logger(request, response);
      request.log.info({ api_key: SECRET_KEY, nested: { mnemonic: 'word word word' } }, 'handled');
      response.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve, reject) => {
      httpRequest(
        { port, path: '/v1/checkout/sessions', headers: { Authorization: `Bearer ${SECRET_KEY}` } },
        (response) => response.resume().on('end', resolve),
      )
        .on('error', reject)
        .end();
    });
    server.close();
    await new Promise((resolve) => setImmediate(resolve));

    const output = lines.join('');
    expect(output).not.toContain(SECRET_KEY);
    expect(output).not.toContain('word word word');
    expect(output).not.toMatch(/authorization/i);
    const completed = lines
      .map((line) => JSON.parse(line))
      .find((line) => line.msg === 'request completed');
    expect(completed).toMatchObject({
      req: { id: 'req_fixed', method: 'GET', url: '/v1/checkout/sessions' },
      res: { statusCode: 200 },
    });
    const handled = lines.map((line) => JSON.parse(line)).find((line) => line.msg === 'handled');
    expect(handled).toMatchObject({ api_key: '[REDACTED]', nested: { mnemonic: '[REDACTED]' } });
  });
});
