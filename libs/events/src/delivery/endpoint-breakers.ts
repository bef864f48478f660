/** Consecutive failures that open an endpoint's breaker. */
export const BREAKER_THRESHOLD = 3;
const FIRST_OPEN_MS = 5_000;
const MAX_OPEN_MS = 5 * 60_000;

interface Breaker {
  failures: number;
  openUntil: number;
  periodMs: number;
}

/**
 * Per-endpoint circuit breakers of one worker. An endpoint that failed several times in a row
 * stops being claimed for a while (doubling up to 5 minutes), then gets one probe at a time until
 * an attempt succeeds: a dead endpoint costs a probe per period instead of an attempt per queued
 * event, and its queue is moved out of the way of the claims (see DeliveryQueueRepository.postpone).
 */
export class EndpointBreakers {
  private readonly breakers = new Map<string, Breaker>();

  constructor(private readonly now: () => number = Date.now) {}

  succeeded(endpointId: string): void {
    this.breakers.delete(endpointId);
  }

  /** Returns how long the breaker opened for, or null when it stays closed. */
  failed(endpointId: string): number | null {
    const breaker = this.breakers.get(endpointId) ?? { failures: 0, openUntil: 0, periodMs: 0 };
    breaker.failures += 1;
    this.breakers.set(endpointId, breaker);
    if (breaker.failures < BREAKER_THRESHOLD || this.isOpen(breaker)) return null;
    breaker.periodMs = Math.min(Math.max(breaker.periodMs * 2, FIRST_OPEN_MS), MAX_OPEN_MS);
    breaker.openUntil = this.now() + breaker.periodMs;
    return breaker.periodMs;
  }

  /** How many attempts may be in flight to the endpoint now: 0 while open, 1 while probing. */
  limitFor(endpointId: string, normal: number): number {
    const breaker = this.breakers.get(endpointId);
    if (!breaker || breaker.failures < BREAKER_THRESHOLD) return normal;
    return this.isOpen(breaker) ? 0 : 1;
  }

  /** Endpoints not at their normal limit (open or probing), for the claim's skip list. */
  restricted(): string[] {
    return [...this.breakers]
      .filter(([, breaker]) => breaker.failures >= BREAKER_THRESHOLD)
      .map(([id]) => id);
  }

  private isOpen(breaker: Breaker): boolean {
    return breaker.openUntil > this.now();
  }
}
