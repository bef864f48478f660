import http from 'node:http';
import net, { AddressInfo } from 'node:net';
import { AddressPolicy } from './address-policy';
import { parseRetryAfter, WebhookHttpClient, WebhookRequest } from './webhook-http-client';
import { Resolver } from './webhook-url';

const DEVELOPMENT: AddressPolicy = { allowPrivate: true };
const PRODUCTION: AddressPolicy = { allowPrivate: false };
const BODY = JSON.stringify({ id: 'evt_1', type: 'payout.completed' });

interface Receiver {
  port: number;
  url(path?: string): string;
  /** TCP connections accepted so far: proves a refused address was never connected to. */
  connections: number;
  requests: http.IncomingMessage[];
  bodies: string[];
}

let servers: http.Server[] = [];
let clients: WebhookHttpClient[] = [];

async function startReceiver(
  handler: (request: http.IncomingMessage, response: http.ServerResponse) => void,
): Promise<Receiver> {
  const server = http.createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: Receiver = {
    port,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    connections: 0,
    requests: [],
    bodies: [],
  };
  server.on('connection', () => receiver.connections++);
  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    receiver.requests.push(request);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receiver.bodies.push(Buffer.concat(chunks).toString('utf8'));
      handler(request, response);
    });
  });
  return receiver;
}

function newClient(policy: AddressPolicy, resolve?: Resolver): WebhookHttpClient {
  const client = new WebhookHttpClient(policy, resolve);
  clients.push(client);
  return client;
}

function post(client: WebhookHttpClient, url: string, overrides: Partial<WebhookRequest> = {}) {
  return client.post({ url, body: BODY, headers: {}, timeoutMs: 5000, ...overrides });
}

/** A port nothing listens on: bound once by us, then released. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const resolverOf =
  (records: Record<string, string[]>): Resolver =>
  async (hostname) => {
    if (!records[hostname]) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
    return records[hostname];
  };

afterEach(async () => {
  for (const client of clients) client.close();
  await Promise.all(
    servers.map((server) => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    }),
  );
  servers = [];
  clients = [];
});

describe('WebhookHttpClient', () => {
  it('returns the status, an excerpt of the body and the latency', async () => {
    const receiver = await startReceiver((_request, response) => response.end('{"received":true}'));

    const response = await post(newClient(DEVELOPMENT), receiver.url());

    expect(response).toEqual({
      statusCode: 200,
      latencyMs: expect.any(Number),
      responseExcerpt: '{"received":true}',
      retryAfterSeconds: null,
      error: null,
    });
    expect(Number.isInteger(response.latencyMs)).toBe(true);
    expect(response.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('sends a POST with the given headers, its own content headers and the exact body', async () => {
    const receiver = await startReceiver((_request, response) => response.writeHead(204).end());
    const body = JSON.stringify({ note: 'café ✓' });

    const response = await post(newClient(DEVELOPMENT), receiver.url('/hook?shop=1'), {
      body,
      headers: { 'webhook-id': 'evt_1', 'x-signature': 't=1,v1=ab', 'Content-Type': 'text/plain' },
    });

    expect(response).toMatchObject({ statusCode: 204, responseExcerpt: null, error: null });
    const [request] = receiver.requests;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/hook?shop=1');
    expect(request.headers).toMatchObject({
      'webhook-id': 'evt_1',
      'x-signature': 't=1,v1=ab',
      'content-type': 'application/json',
      'user-agent': 'StablecoinPayments-Webhooks/1.0',
      'content-length': String(Buffer.byteLength(body)),
    });
    expect(receiver.bodies).toEqual([body]);
  });

  it('keeps only the first 500 characters of the body', async () => {
    const receiver = await startReceiver((_request, response) => response.end('é'.repeat(800)));

    const response = await post(newClient(DEVELOPMENT), receiver.url());

    expect(response.responseExcerpt).toBe('é'.repeat(500));
  });

  it('returns a redirect as its status and never follows it', async () => {
    const receiver = await startReceiver((request, response) => {
      if (request.url === '/hook') response.writeHead(302, { location: '/target' }).end();
      else response.end('followed');
    });

    const response = await post(newClient(DEVELOPMENT), receiver.url());

    expect(response).toMatchObject({ statusCode: 302, error: null });
    expect(receiver.requests.map((request) => request.url)).toEqual(['/hook']);
  });

  it('times out a receiver that never answers', async () => {
    const receiver = await startReceiver(() => undefined);

    const response = await post(newClient(DEVELOPMENT), receiver.url(), { timeoutMs: 300 });

    expect(response).toMatchObject({ statusCode: null, error: 'timed out after 300 ms' });
    expect(response.latencyMs).toBeGreaterThanOrEqual(290);
    expect(response.latencyMs).toBeLessThan(1500);
  }, 10000);

  it('parses Retry-After in delta seconds', async () => {
    const receiver = await startReceiver((_request, response) =>
      response.writeHead(429, { 'retry-after': '7' }).end('slow down'),
    );

    const response = await post(newClient(DEVELOPMENT), receiver.url());

    expect(response).toMatchObject({ statusCode: 429, retryAfterSeconds: 7, error: null });
  });

  it('parses Retry-After as an HTTP-date', async () => {
    const inTwoMinutes = new Date(Date.now() + 120_000).toUTCString();
    const receiver = await startReceiver((_request, response) =>
      response.writeHead(503, { 'retry-after': inTwoMinutes }).end(),
    );

    const response = await post(newClient(DEVELOPMENT), receiver.url());

    expect(response.statusCode).toBe(503);
    expect(response.retryAfterSeconds).toBeGreaterThanOrEqual(115);
    expect(response.retryAfterSeconds).toBeLessThanOrEqual(120);
  });

  it('reports a refused connection', async () => {
    const port = await closedPort();

    const response = await post(newClient(DEVELOPMENT), `http://127.0.0.1:${port}/hook`);

    expect(response).toMatchObject({ statusCode: null, error: 'connection refused' });
  });

  it('reports a refused connection to a resolved hostname', async () => {
    const port = await closedPort();
    const client = newClient(DEVELOPMENT, resolverOf({ 'hooks.test': ['127.0.0.1'] }));

    const response = await post(client, `http://hooks.test:${port}/hook`);

    expect(response).toMatchObject({ statusCode: null, error: 'connection refused' });
  });

  it('reports a receiver that hangs up without answering', async () => {
    const receiver = await startReceiver((request) => request.socket.destroy());

    const response = await post(newClient(DEVELOPMENT), receiver.url());

    expect(response).toMatchObject({ statusCode: null, error: 'connection reset' });
  });

  it('reports a response cut short, keeping its status', async () => {
    const receiver = await startReceiver((_request, response) => {
      response.writeHead(200, { 'content-length': '100' });
      response.write('partial', () => response.socket?.destroy());
    });

    const response = await post(newClient(DEVELOPMENT), receiver.url());

    expect(response).toMatchObject({
      statusCode: 200,
      responseExcerpt: 'partial',
      error: 'connection closed before the response ended',
    });
  });

  it('stops reading a response that streams forever', async () => {
    let streaming: NodeJS.Timeout | undefined;
    const receiver = await startReceiver((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      streaming = setInterval(() => response.write('x'.repeat(1024)), 1);
      response.on('close', () => clearInterval(streaming));
    });

    const response = await post(newClient(DEVELOPMENT), receiver.url(), { timeoutMs: 10000 });

    clearInterval(streaming);
    expect(response).toMatchObject({ statusCode: 200, error: null });
    expect(response.responseExcerpt).toBe('x'.repeat(500));
    expect(response.latencyMs).toBeLessThan(5000);
  }, 15000);

  it('reuses keep-alive connections across deliveries', async () => {
    const receiver = await startReceiver((_request, response) => response.end('ok'));
    const client = newClient(DEVELOPMENT);

    for (let i = 0; i < 5; i++) expect((await post(client, receiver.url())).statusCode).toBe(200);

    expect(receiver.connections).toBe(1);
  });

  it('delivers a burst concurrently over a bounded pool of connections', async () => {
    const receiver = await startReceiver((_request, response) => response.end('ok'));
    const client = newClient(DEVELOPMENT);

    const responses = await Promise.all(
      Array.from({ length: 300 }, () => post(client, receiver.url())),
    );

    expect(responses.every((response) => response.statusCode === 200)).toBe(true);
    expect(receiver.connections).toBeLessThanOrEqual(64);
  }, 20000);

  describe('refused addresses', () => {
    // A name's addresses are never named: the merchant reads the error (a DNS oracle otherwise).
    const RESOLVES_TO_REFUSED =
      'address not allowed: host resolves to a private or reserved address';

    it('refuses loopback in production without connecting', async () => {
      const receiver = await startReceiver((_request, response) => response.end('ok'));

      const response = await post(newClient(PRODUCTION), receiver.url());

      expect(response).toMatchObject({
        statusCode: null,
        responseExcerpt: null,
        error: 'address not allowed: loopback address 127.0.0.1',
      });
      expect(receiver.connections).toBe(0);
    });

    it.each([
      ['http://[::1]:9/hook', 'loopback address ::1'],
      ['https://[::ffff:127.0.0.1]/hook', 'loopback address ::ffff:7f00:1'],
      ['https://2130706433/hook', 'loopback address 127.0.0.1'],
      ['https://10.0.0.1/hook', 'private address 10.0.0.1'],
    ])('refuses the IP literal in %s in production', async (url, reason) => {
      const response = await post(newClient(PRODUCTION), url);
      expect(response).toMatchObject({ statusCode: null, error: `address not allowed: ${reason}` });
    });

    it('refuses localhost in production, resolved at connection time', async () => {
      const receiver = await startReceiver((_request, response) => response.end('ok'));

      const response = await post(newClient(PRODUCTION), `http://localhost:${receiver.port}/hook`);

      expect(response.statusCode).toBeNull();
      expect(response.error).toBe(RESOLVES_TO_REFUSED);
      expect(receiver.connections).toBe(0);
    });

    it('refuses a hostname that now resolves to cloud metadata, even with allowPrivate', async () => {
      const client = newClient(DEVELOPMENT, resolverOf({ 'hooks.test': ['169.254.169.254'] }));

      const response = await post(client, 'http://hooks.test/latest/meta-data/', {
        timeoutMs: 2000,
      });

      expect(response).toMatchObject({ statusCode: null, error: RESOLVES_TO_REFUSED });
    });

    it('refuses the IP literal 169.254.169.254 even with allowPrivate', async () => {
      const response = await post(newClient(DEVELOPMENT), 'http://169.254.169.254/latest/');
      expect(response.error).toBe('address not allowed: link-local address 169.254.169.254');
    });

    it('refuses a hostname when any of its addresses is refused', async () => {
      const receiver = await startReceiver((_request, response) => response.end('ok'));
      const client = newClient(PRODUCTION, resolverOf({ 'hooks.test': ['8.8.8.8', '127.0.0.1'] }));

      const response = await post(client, `http://hooks.test:${receiver.port}/hook`);

      expect(response.error).toBe(RESOLVES_TO_REFUSED);
      expect(receiver.connections).toBe(0);
    });

    it('reports a host that cannot be resolved', async () => {
      const client = newClient(DEVELOPMENT, resolverOf({}));

      const response = await post(client, 'http://nowhere.test/hook');

      expect(response).toMatchObject({ statusCode: null, error: 'could not resolve host' });
    });
  });

  describe('pinned lookup', () => {
    const originalAutoSelectFamily = net.getDefaultAutoSelectFamily();
    afterEach(() => net.setDefaultAutoSelectFamily(originalAutoSelectFamily));

    // net asks for every address ({ all: true }) when it may try several, else for one.
    it.each([true, false])(
      'connects to the address it checked (autoSelectFamily %s)',
      async (autoSelectFamily) => {
        net.setDefaultAutoSelectFamily(autoSelectFamily);
        const receiver = await startReceiver((_request, response) => response.end('ok'));
        const resolve = jest.fn(resolverOf({ 'hooks.test': ['127.0.0.1'] }));
        const client = newClient(DEVELOPMENT, resolve);

        const response = await post(client, `http://hooks.test:${receiver.port}/hook`);

        expect(response).toMatchObject({ statusCode: 200, responseExcerpt: 'ok', error: null });
        expect(resolve).toHaveBeenCalledWith('hooks.test');
        expect(receiver.requests[0].headers.host).toBe(`hooks.test:${receiver.port}`);
      },
    );

    it('resolves localhost through the default resolver with allowPrivate', async () => {
      const receiver = await startReceiver((_request, response) => response.end('ok'));

      const response = await post(newClient(DEVELOPMENT), `http://localhost:${receiver.port}/hook`);

      expect(response).toMatchObject({ statusCode: 200, error: null });
    });
  });

  it.each([
    ['not a url', 'Invalid URL'],
    ['ftp://example.com/hook', 'unsupported url scheme ftp:'],
  ])('never throws, even for %j', async (url, error) => {
    const response = await post(newClient(DEVELOPMENT), url);
    expect(response).toMatchObject({ statusCode: null, error: expect.stringContaining(error) });
  });

  it('never throws for a header value node refuses to send', async () => {
    const receiver = await startReceiver((_request, response) => response.end('ok'));

    const response = await post(newClient(DEVELOPMENT), receiver.url(), {
      headers: { 'x-bad': 'line\nbreak' },
    });

    expect(response.statusCode).toBeNull();
    expect(response.error).toMatch(/ERR_INVALID_CHAR/);
    expect(receiver.connections).toBe(0);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');

  it.each([
    [undefined, null],
    ['0', 0],
    ['7', 7],
    [' 120 ', 120],
    ['Wed, 01 Jan 2025 00:01:30 GMT', 90],
    ['Tue, 31 Dec 2024 23:00:00 GMT', 0],
    ['soon', null],
    ['-5', null],
    ['1.5', null],
    ['99999999999999999999', null],
  ])('%j → %j', (value, seconds) => {
    expect(parseRetryAfter(value, now)).toBe(seconds);
  });
});
