import http from 'node:http';
import { AddressInfo, connect } from 'node:net';
import { StreamSlots } from '../../libs/checkout/src/hosted-page/stream-slots';
import { overrideEnvironment } from '../support/environment';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { createSession } from '../support/sessions-api';

const STREAMS_PER_CLIENT = 3;

/** An open stream of the hosted page, as one client address holds it. */
interface OpenStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  close(): void;
}

/**
 * Opens `/checkout/{id}/stream` from `client` (TRUST_PROXY names it) and resolves once the server
 * answered: with the first event for a stream, with the whole body for a refusal.
 */
function openStream(baseUrl: string, sessionId: string, client: string): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      `${baseUrl}/checkout/${sessionId}/stream`,
      { headers: { 'X-Forwarded-For': client } },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        const stream = () => ({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body,
          close: () => request.destroy(),
        });
        response.on('data', (chunk: string) => {
          body += chunk;
          if (response.statusCode === 200 && body.includes('event: session')) resolve(stream());
        });
        response.on('end', () => resolve(stream()));
      },
    );
    request.on('error', reject);
  });
}

/**
 * A payer who leaves at once: the request is sent and the connection closed in the same breath,
 * before the server has read the session and subscribed to its changes.
 */
async function hangUp(port: number, sessionId: string, client: string): Promise<void> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  // Closed as soon as the request has left (destroying it before could drop the request).
  await new Promise<void>((resolve) =>
    socket.write(
      `GET /checkout/${sessionId}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `X-Forwarded-For: ${client}\r\nAccept: text/event-stream\r\n\r\n`,
      () => resolve(),
    ),
  );
  socket.destroy();
}

describe('Hosted page streams: closed when the payer leaves, capped per client', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let slots: StreamSlots;
  let port: number;
  let baseUrl: string;

  beforeAll(async () => {
    const environment = overrideEnvironment({
      RATE_LIMIT_CHECKOUT_STREAMS_PER_CLIENT: String(STREAMS_PER_CLIENT),
      // Each test's clients are addresses of their own (198.18.0.0/15, which no other suite
      // uses: page limits of other suites count in the same Redis and could refuse them).
      TRUST_PROXY: 'loopback',
    });
    try {
      api = await TestApi.start();
    } finally {
      environment.restore();
    }
    merchant = await api.createMerchant();
    slots = api.app.get(StreamSlots);
    const server = api.app.getHttpServer() as http.Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    baseUrl = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    await api?.close();
  });

  it('closes every stream whose payer hung up while it was being set up', async () => {
    const session = await createSession(api, merchant, { pricing_amount: '25' });
    const before = slots.taken;
    const payers = 50;
    // An address each, so the cap never refuses one: every request reaches the stream's setup.
    await Promise.all(
      Array.from({ length: payers }, (_, i) => hangUp(port, session.id, `198.18.1.${i + 1}`)),
    );
    // Each stream held a slot from its start to its end (timers, subscription, tracking).
    await waitFor(
      async () => slots.taken - before === payers && slots.open === 0,
      30_000,
      `all ${payers} abandoned streams closed`,
    ).catch((error: Error) => {
      throw new Error(`${error.message}: ${slots.open} open, ${slots.taken - before} taken`);
    });
  });

  it('refuses a client past its open streams with 429 rate_limited; others and freed slots are served', async () => {
    const session = await createSession(api, merchant, { pricing_amount: '25' });
    const client = '198.18.2.7';
    const open: OpenStream[] = [];
    try {
      for (let i = 0; i < STREAMS_PER_CLIENT; i++) {
        open.push(await openStream(baseUrl, session.id, client));
        expect(open.at(-1)!.status).toBe(200);
      }
      const refused = await openStream(baseUrl, session.id, client);
      expect(refused.status).toBe(429);
      expect(refused.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(refused.body)).toEqual({
        error: {
          type: 'rate_limit_error',
          code: 'rate_limited',
          message: expect.stringContaining(`${STREAMS_PER_CLIENT} open streams`),
          request_id: refused.headers['request-id'],
        },
      });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);

      // Another address is not affected.
      open.push(await openStream(baseUrl, session.id, '198.18.2.8'));
      expect(open.at(-1)!.status).toBe(200);

      // A stream the client closes frees its slot.
      const openBefore = slots.open;
      open.shift()!.close();
      await waitFor(async () => slots.open === openBefore - 1, 20_000, 'the closed stream freed');
      open.push(await openStream(baseUrl, session.id, client));
      expect(open.at(-1)!.status).toBe(200);
    } finally {
      for (const stream of open) stream.close();
    }
    await waitFor(async () => slots.open === 0, 20_000, 'every stream closed');
  });

  it('frees the slot of a stream for an unknown session', async () => {
    const client = '198.18.2.9';
    for (let i = 0; i < STREAMS_PER_CLIENT + 1; i++) {
      const response = await openStream(baseUrl, 'cs_0000000000000000000000', client);
      expect(response.status).toBe(404);
    }
    await waitFor(async () => slots.open === 0, 20_000, 'no slot held');
  });
});
