import { takeRunSlot } from './setup/run-slot';

describe('Test runs on one host never share a database', () => {
  it('gives concurrent runs different databases and Redis databases, and frees a slot on release', async () => {
    const first = await takeRunSlot();
    const second = await takeRunSlot();
    try {
      expect(second.databaseUrl).not.toBe(first.databaseUrl);
      expect(second.redisUrl).not.toBe(first.redisUrl);
      // Neither is this run's own (its slot is held until the run ends).
      expect([first.databaseUrl, second.databaseUrl]).not.toContain(process.env.DATABASE_URL);
      expect([first.redisUrl, second.redisUrl]).not.toContain(process.env.REDIS_URL);
    } finally {
      await second.release();
    }
    // The next run takes the freed slot again.
    const third = await takeRunSlot();
    await third.release();
    await first.release();
    expect(third.databaseUrl).toBe(second.databaseUrl);
  });
});
