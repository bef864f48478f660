import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { APP_CONFIG, AppConfig, inSpanContinuing } from '@app/common';
import {
  ClaimedDelivery,
  DeliveryOutcome,
  DeliveryQueueRepository,
} from './delivery-queue.repository';
import { EndpointBreakers } from './endpoint-breakers';
import { EndpointHealth } from './endpoint-health';
import { retryDelayMs } from './retry-schedule';
import { SentAttempt, WebhookSender } from './webhook-sender';

// Claims per round trip: big enough for 500 events/s at a 100 ms poll, small enough to spread.
const MAX_CLAIM_BATCH = 200;
// A lease outlives the longest attempt (the timeout) plus recording it.
const LEASE_MARGIN_MS = 10_000;
// After a database error, wait before the next claim instead of spinning.
const ERROR_BACKOFF_MS = 1_000;
// Stored instead of an attempt's own error when that could not be stored.
const UNRECORDED_ERROR = 'delivery failed (details could not be stored)';

/**
 * The worker's webhook loop: claims due deliveries (leased, so a crash loses nothing), sends them
 * concurrently, records every attempt and schedules retries. Slots are bounded per endpoint and
 * per merchant, so a slow or dead endpoint, or a merchant's many, hold at most their share and
 * never delay deliveries to the others. Slow answers count as failures for the breaker: an
 * endpoint answering just under the timeout would otherwise hold its slots forever.
 * Nothing starts it on its own: the worker calls start() and stop() (apps/worker/src/webhooks),
 * so a process that imports this library only to read or write events never delivers.
 */
@Injectable()
export class WebhookDispatcher {
  private readonly logger = new Logger(WebhookDispatcher.name);
  private readonly leaseToken = randomUUID();
  private readonly perEndpoint = new Map<string, number>();
  private readonly perMerchant = new Map<string, number>();
  private inFlight = 0;
  private running = false;
  private loopDone: Promise<void> = Promise.resolve();
  private wake: (() => void) | null = null;
  private readonly settled = new Set<Promise<void>>();
  private readonly breakers = new EndpointBreakers();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly queue: DeliveryQueueRepository,
    private readonly sender: WebhookSender,
    private readonly health: EndpointHealth,
  ) {}

  /** Starts the claim loop; a second call while it runs does nothing. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  /**
   * Stops claiming and lets attempts in flight finish (each is bounded by the timeout). Safe to
   * call again: the worker's drain stops it first, its shutdown hook a second time.
   */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loopDone;
    await Promise.allSettled([...this.settled]);
  }

  private async loop(): Promise<void> {
    const { concurrency, pollIntervalMs } = this.config.webhooks;
    while (this.running) {
      const capacity = concurrency - this.inFlight;
      let claimed = 0;
      if (capacity > 0) {
        try {
          claimed = await this.claimAndStart(Math.min(capacity, MAX_CLAIM_BATCH));
        } catch (error) {
          this.logger.error({ err: error }, 'Claiming webhook deliveries failed');
          await this.sleep(ERROR_BACKOFF_MS);
          continue;
        }
      }
      // A full batch means more are due: claim again at once. Otherwise wait for the next poll,
      // or for a slot to free up when all are taken.
      if (claimed < MAX_CLAIM_BATCH || this.inFlight >= concurrency)
        await this.sleep(pollIntervalMs);
    }
  }

  private async claimAndStart(limit: number): Promise<number> {
    const leaseMs = this.config.webhooks.timeoutMs + LEASE_MARGIN_MS;
    const claims = await this.queue.claim(
      limit,
      { endpoints: this.saturatedEndpoints(), merchants: this.saturatedMerchants() },
      leaseMs,
      this.leaseToken,
    );
    const overflow: string[] = [];
    for (const claim of claims) {
      if (
        (this.perEndpoint.get(claim.endpoint_id) ?? 0) >= this.limitFor(claim.endpoint_id) ||
        (this.perMerchant.get(claim.merchant_id) ?? 0) >= this.config.webhooks.merchantConcurrency
      ) {
        overflow.push(claim.delivery_id);
        continue;
      }
      this.startAttempt(claim);
    }
    await this.queue.release(overflow, this.leaseToken);
    return claims.length;
  }

  private limitFor(endpointId: string): number {
    return this.breakers.limitFor(endpointId, this.config.webhooks.endpointConcurrency);
  }

  /** Endpoints this worker must not claim for now: at their limit, or their breaker open. */
  private saturatedEndpoints(): string[] {
    const full = [...this.perEndpoint]
      .filter(([id, count]) => count >= this.limitFor(id))
      .map(([id]) => id);
    const open = this.breakers
      .restricted()
      .filter((id) => this.limitFor(id) === 0 && !this.perEndpoint.has(id));
    return [...full, ...open];
  }

  /** Merchants with as many deliveries in flight as one merchant may have. */
  private saturatedMerchants(): string[] {
    const limit = this.config.webhooks.merchantConcurrency;
    return [...this.perMerchant].filter(([, count]) => count >= limit).map(([id]) => id);
  }

  private startAttempt(claim: ClaimedDelivery): void {
    this.inFlight += 1;
    count(this.perEndpoint, claim.endpoint_id, +1);
    count(this.perMerchant, claim.merchant_id, +1);
    // The attempt continues the trace of the change that wrote the event (docs/operations.md).
    const done = inSpanContinuing(
      claim.event.trace_context,
      'webhook.deliver',
      {
        'event.id': claim.event.id,
        'event.type': claim.event.type,
        'endpoint.id': claim.endpoint_id,
      },
      () => this.deliver(claim),
    )
      .catch((error) =>
        this.logger.error({ err: error, deliveryId: claim.delivery_id }, 'Webhook delivery failed'),
      )
      .finally(() => {
        this.inFlight -= 1;
        count(this.perEndpoint, claim.endpoint_id, -1);
        count(this.perMerchant, claim.merchant_id, -1);
        this.settled.delete(done);
        this.wake?.();
      });
    this.settled.add(done);
  }

  private async deliver(claim: ClaimedDelivery): Promise<void> {
    if (!claim.endpoint_live) return this.queue.park(claim.delivery_id, claim.lease_token);
    const attempt = await this.sender.send(claim);
    // A slow answer delivered the event, but counts toward the breaker as a failure.
    const slow = attempt.latencyMs >= this.config.webhooks.slowResponseMs;
    // The endpoint's state first: whoever sees the attempt recorded also sees its consequence (a
    // 410 has disabled the endpoint by then).
    if (attempt.succeeded) {
      if (!slow) this.breakers.succeeded(claim.endpoint_id);
      await this.health.succeeded(claim.endpoint_id);
    } else {
      await this.health.failed(claim.endpoint_id, attempt.attemptedAt, attempt.statusCode === 410);
    }
    await this.record(claim, attempt);
    if (!attempt.succeeded || slow) {
      const openForMs = this.breakers.failed(claim.endpoint_id);
      if (openForMs !== null) await this.queue.postpone(claim.endpoint_id, openForMs);
    }
  }

  /**
   * Records the attempt; if that fails, records it again without the receiver's text and the
   * error: an attempt left unrecorded keeps its delivery leased, and when the lease runs out it
   * is sent again, past the retry schedule and the breaker, for as long as recording fails.
   */
  private async record(claim: ClaimedDelivery, attempt: SentAttempt): Promise<void> {
    const outcome = this.outcomeOf(claim, attempt);
    try {
      await this.queue.recordAttempt(claim, attempt, outcome);
    } catch (error) {
      this.logger.error(
        { err: error, deliveryId: claim.delivery_id },
        'Recording a webhook attempt failed; recording it without its response',
      );
      await this.queue.recordAttempt(
        claim,
        { ...attempt, responseExcerpt: null, error: attempt.succeeded ? null : UNRECORDED_ERROR },
        outcome,
      );
    }
  }

  private outcomeOf(claim: ClaimedDelivery, attempt: SentAttempt): DeliveryOutcome {
    if (attempt.succeeded) return { status: 'Succeeded' };
    if (attempt.statusCode === 410) return { status: 'Failed' };
    const honoursRetryAfter = attempt.statusCode === 429 || attempt.statusCode === 503;
    const retryInMs = retryDelayMs(
      claim.attempt_count + 1,
      honoursRetryAfter ? attempt.retryAfterSeconds : null,
    );
    return retryInMs === null ? { status: 'Failed' } : { status: 'Pending', retryInMs };
  }

  /** Waits `ms`, or less when a delivery frees a slot or the application stops. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wake === done) this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}

/** Adds `by` to a key's count; a count that drops to 0 leaves the map. */
function count(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next > 0) counts.set(key, next);
  else counts.delete(key);
}
