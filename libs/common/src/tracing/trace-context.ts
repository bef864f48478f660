import {
  context,
  propagation,
  Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
} from '@opentelemetry/api';

// The API alone (no SDK): without a registered SDK every call below is a no-op, so these
// helpers cost next to nothing when tracing is off.
const tracer = trace.getTracer('stablecoin-payments');

/**
 * The active span's W3C `traceparent` (00-<trace id>-<span id>-<flags>), to store with work that
 * another process picks up (an event's row, a payout job); null when no span is active or
 * tracing is off.
 */
export function currentTraceparent(): string | null {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/** Adds `traceparent` (and `tracestate`) of the active span to outgoing headers, when there is one. */
export function injectTraceHeaders(headers: Record<string, string>): Record<string, string> {
  propagation.inject(context.active(), headers);
  return headers;
}

/** Runs `work` in a span; the span records a thrown error and ends when `work` settles. */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  return tracer.startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Runs `work` in a span whose parent is the stored `traceparent` (work picked up from a row or a
 * job that another process wrote), so it joins the trace that made it; a new trace without one.
 */
export function inSpanContinuing<T>(
  traceparent: string | null | undefined,
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.CONSUMER,
): Promise<T> {
  if (!traceparent) return inSpan(name, attributes, work, kind);
  const parent = propagation.extract(context.active(), { traceparent });
  return context.with(parent, () => inSpan(name, attributes, work, kind));
}

/** `trace_id` and `span_id` of the active span for a log line (pino's mixin); {} without one. */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

export { SpanKind };
