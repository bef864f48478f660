import { takeRunSlots } from '../setup/run-slot';

describe('Test runs on one host never share a database', () => {
  it('gives concurrent runs different databases and Redis databases, and frees slots on release', async () => {
    const first = await takeRunSlots(2);
    const second = await takeRunSlots(1);
    const all = [...first.slots, ...second.slots];
    try {
      // Two slots in one take, a third in another: all different.
      expect(new Set(all.map((slot) => slot.databaseUrl)).size).toBe(3);
      expect(new Set(all.map((slot) => slot.redisUrl)).size).toBe(3);
      // None is this worker's own (the run's slots are held until it ends).
      expect(all.map((slot) => slot.databaseUrl)).not.toContain(process.env.DATABASE_URL);
      expect(all.map((slot) => slot.redisUrl)).not.toContain(process.env.REDIS_URL);
    } finally {
      await second.release();
    }
    // The next run takes the freed slot again.
    const third = await takeRunSlots(1);
    await third.release();
    await first.release();
    expect(third.slots[0].databaseUrl).toBe(second.slots[0].databaseUrl);
  });
});
