import { BREAKER_THRESHOLD, EndpointBreakers } from './endpoint-breakers';

describe('EndpointBreakers', () => {
  let now = 0;
  const breakers = () => new EndpointBreakers(() => now);

  beforeEach(() => {
    now = 1_000_000;
  });

  it('stays closed below the threshold and opens at it', () => {
    const subject = breakers();
    for (let failure = 1; failure < BREAKER_THRESHOLD; failure++) {
      expect(subject.failed('we_a')).toBeNull();
      expect(subject.limitFor('we_a', 32)).toBe(32);
    }
    expect(subject.failed('we_a')).toBe(5_000);
    expect(subject.limitFor('we_a', 32)).toBe(0);
    expect(subject.restricted()).toEqual(['we_a']);
  });

  it('probes one at a time after the period, and doubles the period on another failure', () => {
    const subject = breakers();
    for (let failure = 0; failure < BREAKER_THRESHOLD; failure++) subject.failed('we_a');
    now += 5_000;
    expect(subject.limitFor('we_a', 32)).toBe(1);
    expect(subject.failed('we_a')).toBe(10_000);
    expect(subject.limitFor('we_a', 32)).toBe(0);
  });

  it('caps the period at 5 minutes', () => {
    const subject = breakers();
    let period: number | null = null;
    for (let round = 0; round < 20; round++) {
      period = subject.failed('we_a') ?? period;
      now += 600_000;
    }
    expect(period).toBe(300_000);
  });

  it('closes on a success and leaves other endpoints alone', () => {
    const subject = breakers();
    for (let failure = 0; failure < BREAKER_THRESHOLD; failure++) subject.failed('we_a');
    expect(subject.limitFor('we_b', 32)).toBe(32);
    subject.succeeded('we_a');
    expect(subject.limitFor('we_a', 32)).toBe(32);
    expect(subject.restricted()).toEqual([]);
  });
});
