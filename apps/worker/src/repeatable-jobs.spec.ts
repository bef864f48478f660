import type { Logger } from '@nestjs/common';
import { keepRescheduling, RESCHEDULE_EVERY_MS } from './repeatable-jobs';

describe('keepRescheduling', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const logger = () => ({ warn: jest.fn() }) as unknown as Logger & { warn: jest.Mock };

  it('registers the schedules again every 15 s until stopped', async () => {
    const schedule = jest.fn().mockResolvedValue(undefined);
    const stop = keepRescheduling(schedule, logger(), 'Payout jobs');
    expect(RESCHEDULE_EVERY_MS).toBe(15_000);
    await jest.advanceTimersByTimeAsync(RESCHEDULE_EVERY_MS - 1);
    expect(schedule).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1 + 2 * RESCHEDULE_EVERY_MS);
    expect(schedule).toHaveBeenCalledTimes(3);
    stop();
    await jest.advanceTimersByTimeAsync(5 * RESCHEDULE_EVERY_MS);
    expect(schedule).toHaveBeenCalledTimes(3);
  });

  it('logs a failed pass (Redis down) and retries at the next one', async () => {
    const log = logger();
    const schedule = jest
      .fn()
      .mockRejectedValueOnce(new Error('Connection is closed.'))
      .mockResolvedValue(undefined);
    const stop = keepRescheduling(schedule, log, 'Maintenance jobs');
    await jest.advanceTimersByTimeAsync(2 * RESCHEDULE_EVERY_MS);
    expect(schedule).toHaveBeenCalledTimes(2);
    expect(log.warn.mock.calls).toEqual([
      [{ reason: 'Error: Connection is closed.' }, 'Maintenance jobs not rescheduled; retrying'],
    ]);
    stop();
  });

  it('never keeps the process alive', () => {
    const setIntervalSpy = jest.spyOn(global, 'setInterval');
    const stop = keepRescheduling(jest.fn(), logger(), 'Payout jobs');
    expect((setIntervalSpy.mock.results[0].value as NodeJS.Timeout).hasRef()).toBe(false);
    stop();
    setIntervalSpy.mockRestore();
  });
});
