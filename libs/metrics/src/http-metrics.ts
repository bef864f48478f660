import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { METRIC_PREFIX, METRICS_REGISTRY } from './metrics-registry';
import { routeLabel } from './route-label';

// From a cached read (a few ms) to the slowest request the API should ever serve.
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Request counts and latencies by method, route pattern and status, for every response. */
@Injectable()
export class HttpMetricsMiddleware implements NestMiddleware {
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly durations: Histogram<'method' | 'route' | 'status'>;
  private readonly inFlight: Gauge;

  constructor(@Inject(METRICS_REGISTRY) registry: Registry) {
    const labelNames = ['method', 'route', 'status'] as const;
    this.requests = new Counter({
      name: `${METRIC_PREFIX}http_requests_total`,
      help: 'HTTP requests answered, by method, route pattern and status.',
      labelNames,
      registers: [registry],
    });
    this.durations = new Histogram({
      name: `${METRIC_PREFIX}http_request_duration_seconds`,
      help: 'Time from request to the end of the response, by method, route pattern and status.',
      labelNames,
      buckets: DURATION_BUCKETS,
      registers: [registry],
    });
    this.inFlight = new Gauge({
      name: `${METRIC_PREFIX}http_requests_in_flight`,
      help: 'Requests received and not answered yet.',
      registers: [registry],
    });
  }

  use(request: Request, response: Response, next: NextFunction): void {
    const started = process.hrtime.bigint();
    const middlewareRoute: unknown = request.route;
    this.inFlight.inc();
    let counted = false;
    // 'close' also covers a client that went away before the response ended.
    const done = () => {
      if (counted) return;
      counted = true;
      this.inFlight.dec();
      const labels = {
        method: request.method,
        route: routeLabel(request, middlewareRoute),
        status: String(response.statusCode),
      };
      this.requests.inc(labels);
      this.durations.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    };
    response.once('finish', done);
    response.once('close', done);
    next();
  }
}
