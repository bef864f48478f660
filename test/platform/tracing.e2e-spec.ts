// First: tracing starts before the apps load node:http (see the module).
import { spanExporter, stopTracing } from '../support/tracing-sdk';
import type { INestApplicationContext } from '@nestjs/common';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import pino from 'pino';
import { Wallet } from 'ethers';
import { inSpan, loadAppConfig, pinoHttpOptions } from '@app/common';
import { useChainEnvironment } from '../support/chain-test-env';
import { Devnet, startDevnet } from '../support/devnet';
import { DEVNET_ACCOUNTS } from '../support/devnet';
import { startWorker } from '../support/in-process-worker';
import { startPayoutsOnNewChain, writeHotWalletsFile } from '../support/payout-chain';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { ReceivedWebhook, WebhookReceiver } from '../support/webhook-receiver';

const traceIdOf = (traceparent: string) => traceparent.split('-')[1];

/*
 * Tracing on (OpenTelemetry's SDK, its in-memory exporter): the API and the whole worker in this
 * process, on a real anvil chain, PostgreSQL and Redis. A change made by an API request, the
 * event it writes (the outbox row), the Bull job and the worker's RPC calls, and the webhook
 * request, are one trace; the webhook request carries its `traceparent`.
 */
describe('Traces: one trace from the API request through the outbox and the queue to the chain and the webhook', () => {
  let devnet: Devnet;
  let api: TestApi;
  let worker: INestApplicationContext;
  let receiver: WebhookReceiver;
  let environment: ReturnType<typeof useChainEnvironment>;
  let merchant: TestMerchant;

  beforeAll(async () => {
    devnet = await startDevnet();
    environment = useChainEnvironment(devnet.networksFileJson({ confirmations: 1 }), {
      TRACING_ENABLED: 'true',
      WATCH_NETWORKS: 'ETHEREUM',
      DEPOSIT_SCAN_INTERVAL_MS: '200',
      HOT_WALLETS_FILE: writeHotWalletsFile({ ETHEREUM: DEVNET_ACCOUNTS.hotWallet.privateKey }),
      PAYOUT_TRACK_INTERVAL_MS: '200',
      PAYOUT_RETRY_DELAY_MS: '300',
      PAYOUT_NETWORK_FEES: 'ETHEREUM=0.5',
      PAYOUT_REVIEW_THRESHOLD: '100000',
      WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '50',
    });
    api = await TestApi.start();
    await startPayoutsOnNewChain(api, 'ETHEREUM');
    worker = await startWorker();
    receiver = await WebhookReceiver.start();
    merchant = await api.createMerchant({ name: 'Traced Shop' });
    await api.post('/v1/webhook-endpoints', merchant, { url: receiver.url }).expect(201);
  });

  afterAll(async () => {
    // TRACE_EXPORT_FILE=spans.json keeps what was exported (docs/operations.md shows a listing).
    if (process.env.TRACE_EXPORT_FILE) {
      writeFileSync(
        process.env.TRACE_EXPORT_FILE,
        JSON.stringify(spanExporter.getFinishedSpans().map(spanJson), null, 1),
      );
    }
    await worker?.close();
    await api?.close();
    await receiver?.stop();
    await devnet?.stop();
    environment?.restore();
    await stopTracing();
  });

  const spansOf = (traceId: string) =>
    spanExporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);

  async function traceOfEvent(
    objectId: string,
    type: string,
  ): Promise<{ id: string; trace: string }> {
    const [row]: Array<{ id: string; trace_context: string | null }> = await api.dataSource.query(
      `SELECT id, trace_context FROM events WHERE object_id = $1 AND type = $2`,
      [objectId, type],
    );
    expect(row?.trace_context).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    return { id: row.id, trace: row.trace_context! };
  }

  async function webhookOf(eventId: string): Promise<ReceivedWebhook> {
    const find = () =>
      receiver.received.find(
        (webhook) => (JSON.parse(webhook.body) as { id: string }).id === eventId,
      );
    await waitFor(async () => find() !== undefined, 30_000, `the webhook of ${eventId}`);
    return find()!;
  }

  async function newSession(amount: string): Promise<{ id: string; pay_address: string }> {
    const { body } = await api
      .post('/v1/checkout/sessions', merchant, {
        pricing_amount: amount,
        pricing_currency: 'USD',
        currency: 'USDT',
        network: 'ETHEREUM',
      })
      .expect(201);
    return body as { id: string; pay_address: string };
  }

  async function sessionPaidOnChain(amount: string): Promise<string> {
    const session = await newSession(amount);
    await devnet.transfer('USDT', session.pay_address, amount);
    await waitFor(
      async () =>
        (await api.get(`/v1/checkout/sessions/${session.id}`, merchant).expect(200)).body.status ===
        'Paid',
      60_000,
      'the payment',
    );
    return session.id as string;
  }

  it('a session paid through the API: the request, its paid event and the webhook delivery are one trace; the webhook carries traceparent', async () => {
    const session = await newSession('25');
    // A sandbox payment (test helper): an API request that writes the paid event.
    await api
      .post(`/v1/test-helpers/checkout/sessions/${session.id}/payments`, merchant, { amount: '25' })
      .expect(200);
    const paid = await traceOfEvent(session.id, 'checkout.session.paid');
    const traceId = traceIdOf(paid.trace);

    // The event's traceparent names a span of the API request's trace: its server span's.
    const request = spansOf(traceId).find((span) => span.kind === SpanKind.SERVER);
    expect(request?.attributes['http.route'] ?? request?.name).toMatch(/payments/);
    expect(spansOf(traceId).map((span) => span.spanContext().spanId)).toContain(
      paid.trace.split('-')[2],
    );

    // The worker's delivery continued that trace, and sent it to the receiver.
    const webhook = await webhookOf(paid.id);
    expect(webhook.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(traceIdOf(String(webhook.headers.traceparent))).toBe(traceId);
    await waitFor(
      async () =>
        spansOf(traceId).some(
          (span) => span.name === 'webhook.deliver' && span.attributes['event.id'] === paid.id,
        ),
      30_000,
      'the delivery span',
    );
  });

  it('a session paid on chain: the worker scan that saw it, its events, RPC calls and webhooks are one trace', async () => {
    const session = await newSession('25');
    await devnet.transfer('USDT', session.pay_address, '25');
    await waitFor(
      async () =>
        (await api.get(`/v1/checkout/sessions/${session.id}`, merchant).expect(200)).body.status ===
        'Paid',
      60_000,
      'the payment',
    );
    const paid = await traceOfEvent(session.id, 'checkout.session.paid');
    const traceId = traceIdOf(paid.trace);
    const scan = spansOf(traceId).find((span) => span.name === 'deposits.scan');
    expect(scan?.attributes['chain.network']).toBe('ETHEREUM');
    expect(spansOf(traceId).some((span) => span.name.startsWith('rpc eth_'))).toBe(true);
    const webhook = await webhookOf(paid.id);
    expect(traceIdOf(String(webhook.headers.traceparent))).toBe(traceId);
  });

  it('a payout: the creating request, the Bull job, the RPC calls that send it and its webhooks are one trace', async () => {
    await sessionPaidOnChain('100');
    const { body: payout } = await api
      .post(
        '/v1/payouts',
        merchant,
        {
          amount: '40',
          currency: 'USDT',
          network: 'ETHEREUM',
          to_address: Wallet.createRandom().address,
        },
        { 'Idempotency-Key': randomUUID() },
      )
      .expect(201);
    const created = await traceOfEvent(payout.id, 'payout.created');
    const traceId = traceIdOf(created.trace);

    await waitFor(
      async () =>
        (await api.get(`/v1/payouts/${payout.id}`, merchant).expect(200)).body.status ===
        'Completed',
      60_000,
      'the payout completed',
    );
    // The worker's send job continued the request's trace: its RPC calls are in it.
    const send = spansOf(traceId).find(
      (span) => span.name === 'payout.send' && span.attributes['payout.id'] === payout.id,
    );
    expect(send).toBeDefined();
    const rpcMethods = spansOf(traceId)
      .filter((span) => span.name.startsWith('rpc '))
      .map((span) => span.attributes['rpc.method']);
    expect(rpcMethods).toContain('eth_sendRawTransaction');

    // The event the send wrote (processing) is in the trace, and so are both webhooks.
    const processing = await traceOfEvent(payout.id, 'payout.processing');
    expect(traceIdOf(processing.trace)).toBe(traceId);
    for (const event of [created, processing]) {
      const webhook = await webhookOf(event.id);
      expect(traceIdOf(String(webhook.headers.traceparent))).toBe(traceId);
    }

    // Completion is seen by the tracker's tick: its trace holds the completed event and webhook.
    const completed = await traceOfEvent(payout.id, 'payout.completed');
    await waitFor(
      async () => spansOf(traceIdOf(completed.trace)).some((span) => span.name === 'payouts.track'),
      30_000,
      'the tracker tick span',
    );
    const completedWebhook = await webhookOf(completed.id);
    expect(traceIdOf(String(completedWebhook.headers.traceparent))).toBe(
      traceIdOf(completed.trace),
    );
  });

  it('a log line written in a span carries its trace_id and span_id; one outside carries none', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const options = pinoHttpOptions(loadAppConfig());
    const logger = pino({ mixin: options.mixin }, sink);
    const ids = await inSpan('log test', {}, async (span) => {
      logger.info('inside');
      return span.spanContext();
    });
    logger.info('outside');
    const [inside, outside] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(inside).toMatchObject({ trace_id: ids.traceId, span_id: ids.spanId, msg: 'inside' });
    expect(outside).not.toHaveProperty('trace_id');
  });
});

function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

/** A span as the docs list it. */
function spanJson(span: ReadableSpan) {
  return {
    name: span.name,
    kind: SpanKind[span.kind],
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: parentOf(span) ?? null,
    start: new Date(span.startTime[0] * 1000 + span.startTime[1] / 1e6).toISOString(),
    durationMs: Math.round((span.duration[0] * 1e3 + span.duration[1] / 1e6) * 10) / 10,
    attributes: span.attributes,
    status: span.status.code,
  };
}
