import type { InstrumentationBase } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';

export interface TracingOptions {
  /** OTEL_SERVICE_NAME wins when set. */
  serviceName: string;
  /** Where spans go instead of OTLP (tests: an in-memory exporter behind a simple processor). */
  spanProcessors?: SpanProcessor[];
}

/** The instrumentations the service uses: inbound and outbound HTTP, Express, pg, ioredis. */
export function tracingInstrumentations(): InstrumentationBase[] {
  return [
    new HttpInstrumentation({
      // Probes and scrapes every few seconds would bury the spans that matter.
      ignoreIncomingRequestHook: (request) =>
        /^\/(health|metrics)(\/|\?|$)/.test(request.url ?? ''),
    }),
    new ExpressInstrumentation(),
    // Statements without their parameters (they hold addresses and amounts, never needed here).
    // Only inside a trace: the worker's polls (webhook claims, Bull's Redis commands) would
    // otherwise each be a trace of one span, many a second.
    new PgInstrumentation({ enhancedDatabaseReporting: false, requireParentSpan: true }),
    new IORedisInstrumentation({ requireParentSpan: true }),
  ];
}

export interface StartedTracing {
  sdk: NodeSDK;
  instrumentations: InstrumentationBase[];
  /** Exports what is buffered, unpatches the instrumented modules and stops the SDK. */
  stop(): Promise<void>;
}

/**
 * Starts OpenTelemetry's Node SDK: W3C trace context, the instrumentations above and, unless
 * told otherwise, the OTLP exporter configured by the standard OTEL_EXPORTER_OTLP_* variables.
 * Must run before express, pg, ioredis and http are first required (see ./register).
 */
export function startTracing(options: TracingOptions): StartedTracing {
  // Traces only: metrics are Prometheus' (/metrics) and logs go to stdout.
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  const instrumentations = tracingInstrumentations();
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME || options.serviceName,
    instrumentations,
    ...(options.spanProcessors ? { spanProcessors: options.spanProcessors } : {}),
  });
  sdk.start();
  // Spans still buffered are exported on the way out (the shutdown hooks exit the process).
  const exported = () => void sdk.shutdown();
  process.once('beforeExit', exported);
  return {
    sdk,
    instrumentations,
    async stop() {
      process.off('beforeExit', exported);
      // The SDK's shutdown leaves the modules patched; a test process goes on without them.
      for (const instrumentation of instrumentations) instrumentation.disable();
      await sdk.shutdown();
    },
  };
}
