import type { INestApplicationContext } from '@nestjs/common';
import { spawn } from 'node:child_process';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { TestApi } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { withEnvironment } from '../support/webhook-env';
import { WebhookReceiver } from '../support/webhook-receiver';
import { startWebhookWorker } from '../support/webhook-worker';

/*
 * Tracing off (the default): the webhook request carries no traceparent, events store none, and
 * a process started as main.ts starts it neither loads the SDK nor exports anything to the
 * configured OTLP endpoint; the same process with TRACING_ENABLED=true does both.
 */
describe('Traces off by default: no traceparent, nothing loaded, nothing exported', () => {
  it('a session paid through the API: its webhook carries no traceparent and its event no trace', async () => {
    const restore = withEnvironment({
      WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '50',
    });
    let api: TestApi | undefined;
    let worker: INestApplicationContext | undefined;
    const receiver = await WebhookReceiver.start();
    try {
      api = await TestApi.start();
      worker = await startWebhookWorker();
      const merchant = await api.createMerchant({ name: 'Untraced Shop' });
      await api.post('/v1/webhook-endpoints', merchant, { url: receiver.url }).expect(201);
      const { body: session } = await api
        .post('/v1/checkout/sessions', merchant, {
          pricing_amount: '10',
          pricing_currency: 'USD',
          currency: 'USDT',
          network: 'ETHEREUM',
        })
        .expect(201);
      await api
        .post(`/v1/test-helpers/checkout/sessions/${session.id}/payments`, merchant, {
          amount: '10',
        })
        .expect(200);
      const [event]: Array<{ id: string; trace_context: string | null }> =
        await api.dataSource.query(
          `SELECT id, trace_context FROM events WHERE object_id = $1 AND type = 'checkout.session.paid'`,
          [session.id],
        );
      expect(event.trace_context).toBeNull();
      await waitFor(
        async () => receiver.received.some((webhook) => webhook.body.includes(event.id)),
        30_000,
        'the paid webhook',
      );
      const webhook = receiver.received.find((received) => received.body.includes(event.id))!;
      expect(webhook.headers['webhook-id']).toBe(event.id);
      expect(webhook.headers).not.toHaveProperty('traceparent');
    } finally {
      await worker?.close();
      await api?.close();
      await receiver.stop();
      restore();
    }
  });

  describe('a process started the way main.ts starts (./instrument first)', () => {
    let collector: Server;
    let exports: string[];

    beforeAll(async () => {
      exports = [];
      // An OTLP/HTTP collector on loopback: counts what is exported to it.
      collector = createServer((request, response) => {
        exports.push(request.url ?? '');
        request.resume();
        request.on('end', () => response.writeHead(200).end());
      });
      await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    });

    afterAll(async () => {
      await new Promise((resolve) => collector.close(resolve));
    });

    /** Runs a process that starts tracing as main.ts does, makes a span and exits. */
    function runProbe(tracingEnabled: string | undefined): Promise<{ sdkLoaded: boolean }> {
      const script = `
        require('./libs/common/src/tracing/register').startTracingIfEnabled('payments-probe');
        const { inSpan } = require('./libs/common/src/tracing/trace-context');
        inSpan('probe', {}, async () => undefined).then(() => {
          const sdkLoaded = Object.keys(require.cache).some((path) => path.includes('@opentelemetry/sdk-node'));
          console.log(JSON.stringify({ sdkLoaded }));
        });`;
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
      };
      if (tracingEnabled === undefined) delete env.TRACING_ENABLED;
      else env.TRACING_ENABLED = tracingEnabled;
      return new Promise((resolve, reject) => {
        const child = spawn(
          process.execPath,
          ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', '-e', script],
          { cwd: `${__dirname}/../..`, env },
        );
        let output = '';
        let errors = '';
        child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
        child.on('error', reject);
        child.on('exit', (code) => {
          if (code !== 0) return reject(new Error(`probe exited ${code}: ${errors}`));
          resolve(JSON.parse(output.trim().split('\n').pop()!) as { sdkLoaded: boolean });
        });
      });
    }

    it('off (unset): the SDK is not even loaded, and nothing reaches the OTLP endpoint', async () => {
      expect(await runProbe(undefined)).toEqual({ sdkLoaded: false });
      expect(await runProbe('false')).toEqual({ sdkLoaded: false });
      expect(exports).toEqual([]);
    });

    it('on: the SDK is loaded and the span is exported to OTEL_EXPORTER_OTLP_ENDPOINT on exit', async () => {
      expect(await runProbe('true')).toEqual({ sdkLoaded: true });
      await waitFor(async () => exports.includes('/v1/traces'), 30_000, 'the export');
    });
  });
});
