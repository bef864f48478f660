import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { PaymentsApiError, PaymentsClient, parseRetryAfter } from './index';
import { backoffMs, DEFAULT_RETRY_POLICY } from './retry';

interface Seen {
  method: string;
  url: string;
  idempotencyKey: string | undefined;
  authorization: string | undefined;
  body: string;
  at: number;
  headers: IncomingMessage['headers'];
}

type Answer = (response: ServerResponse, request: IncomingMessage) => void;

/** A loopback server that answers each request with the next scripted answer. */
async function scriptedServer(
  answers: Answer[],
): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({
        method: request.method ?? '',
        url: request.url ?? '',
        idempotencyKey: request.headers['idempotency-key'] as string | undefined,
        authorization: request.headers.authorization,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
        headers: request.headers,
      });
      const answer = answers.shift() ?? json(200, {});
      answer(response, request);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  return (response) => {
    response.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };
}

const dropConnection: Answer = (response) => response.socket?.destroy();

const envelope = (code: string) => ({
  error: { type: 'rate_limit_error', code, message: 'Slow down.', request_id: 'req_test' },
});
const sessionBody = {
  pricing_amount: '10',
  pricing_currency: 'USD',
  currency: 'USDT',
  network: 'TRON',
} as const;

describe('PaymentsClient retries', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(
      servers.splice(0).map((server) => {
        server.closeAllConnections();
        return new Promise((resolve) => server.close(resolve));
      }),
    );
  });
  const start = async (answers: Answer[]) => {
    const started = await scriptedServer(answers);
    servers.push(started.server);
    return started;
  };

  it('waits what Retry-After says on a 429, then resends the POST with the same Idempotency-Key', async () => {
    const { url, seen } = await start([
      json(429, envelope('rate_limited'), { 'Retry-After': '1' }),
      json(201, { id: 'cs_1' }),
    ]);
    const client = new PaymentsClient({ apiKey: 'sk_test_x', baseUrl: url });

    const session = await client.post('/v1/checkout/sessions', { body: sessionBody });

    expect(session.id).toBe('cs_1');
    expect(seen).toHaveLength(2);
    expect(seen[0].idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1].idempotencyKey).toBe(seen[0].idempotencyKey);
    expect(seen[1].body).toBe(seen[0].body);
    expect(seen[0].authorization).toBe('Bearer sk_test_x');
    // Retry-After: 1 is honoured (not the 0–500 ms first backoff step).
    expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(950);
  });

  it('honours Retry-After as an HTTP date, and keeps a key the caller passed', async () => {
    const inTwoSeconds = new Date(Date.now() + 2000).toUTCString();
    const { url, seen } = await start([
      json(503, envelope('service_unavailable'), { 'Retry-After': inTwoSeconds }),
      json(201, { id: 'cs_2' }),
    ]);
    const client = new PaymentsClient({ apiKey: 'sk_test_x', baseUrl: url });

    await client.post('/v1/checkout/sessions', {
      body: sessionBody,
      params: { header: { 'Idempotency-Key': 'order-42' } },
    });

    expect(seen.map((request) => request.idempotencyKey)).toEqual(['order-42', 'order-42']);
    // An HTTP date has one-second precision: at least the whole seconds left when it was sent.
    expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(900);
  });

  it('gives up after maxAttempts with a typed error carrying the wait asked for', async () => {
    const limited = json(429, envelope('rate_limited'), {
      'Retry-After': '0',
      'Request-Id': 'req_header',
    });
    const { url, seen } = await start([limited, limited, limited]);
    const client = new PaymentsClient({ apiKey: 'sk_test_x', baseUrl: url, maxAttempts: 2 });

    const failure = await client.get('/v1/balances').catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(PaymentsApiError);
    expect(failure).toMatchObject({
      status: 429,
      code: 'rate_limited',
      requestId: 'req_test',
      retryAfterMs: 0,
    });
    expect(seen).toHaveLength(2);
  });

  it('does not wait a Retry-After longer than maxDelayMs: the error is returned at once', async () => {
    const { url, seen } = await start([
      json(429, envelope('rate_limited'), { 'Retry-After': '3600' }),
    ]);
    const client = new PaymentsClient({ apiKey: 'sk_test_x', baseUrl: url });

    const failure = await client.get('/v1/balances').catch((error: unknown) => error);

    expect(failure).toMatchObject({ status: 429, retryAfterMs: 3_600_000 });
    expect(seen).toHaveLength(1);
  });

  it('resends after a lost connection only what is safe: a keyed POST yes, a PATCH no', async () => {
    const { url, seen } = await start([dropConnection, json(201, { id: 'cs_3' }), dropConnection]);
    const client = new PaymentsClient({
      apiKey: 'sk_test_x',
      baseUrl: url,
      retry: { baseDelayMs: 10 },
    });

    await expect(client.post('/v1/checkout/sessions', { body: sessionBody })).resolves.toEqual({
      id: 'cs_3',
    });
    expect(seen[1].idempotencyKey).toBe(seen[0].idempotencyKey);

    await expect(
      client.patch('/v1/sub-merchants/{code}', {
        params: { path: { code: 'shop-1' } },
        body: { name: 'Renamed' },
      }),
    ).rejects.toThrow();
    expect(seen).toHaveLength(3);
  });

  it('a non-envelope answer still gives a PaymentsApiError with the status and Request-Id', async () => {
    const { url } = await start([
      (response) => {
        response.writeHead(502, { 'Content-Type': 'text/html', 'Request-Id': 'req_proxy' });
        response.end('<h1>Bad gateway</h1>');
      },
    ]);
    const client = new PaymentsClient({ apiKey: 'sk_test_x', baseUrl: url });

    const failure = await client.get('/v1/balances').catch((error: unknown) => error);

    expect(failure).toMatchObject({ status: 502, code: null, requestId: 'req_proxy' });
  });
});

describe('PaymentsClient.list', () => {
  it('follows Link rel="next" under the base URL, with the call\'s headers on every page', async () => {
    const { url, seen, server } = await scriptedServer([
      json(200, [{ id: 'a' }, { id: 'b' }], { Link: '</v1/payouts?page=2>; rel="next"' }),
      json(200, [{ id: 'c' }], { Link: '</v1/payouts?page=1>; rel="first"' }),
    ]);
    try {
      const client = new PaymentsClient({ apiKey: 'sk_test_x', baseUrl: `${url}/` });
      const ids: string[] = [];
      for await (const payout of client.list('/v1/payouts', { headers: { 'X-Trace': 't1' } })) {
        ids.push(payout.id);
      }
      expect(ids).toEqual(['a', 'b', 'c']);
      expect(seen.map((request) => request.url)).toEqual(['/v1/payouts', '/v1/payouts?page=2']);
      expect(seen.map((request) => request.headers['x-trace'])).toEqual(['t1', 't1']);
      expect(seen[1].authorization).toBe('Bearer sk_test_x');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('parseRetryAfter and backoffMs', () => {
  it('reads seconds and HTTP dates, past dates as 0, junk as null', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });

  it('doubles the ceiling each attempt, capped, with full jitter', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1000 };
    expect([1, 2, 3, 4, 5].map((attempt) => backoffMs(attempt, policy, () => 1))).toEqual([
      100, 200, 400, 800, 1000,
    ]);
    expect(backoffMs(3, policy, () => 0)).toBe(0);
    expect(backoffMs(3, policy, () => 0.5)).toBe(200);
  });
});
