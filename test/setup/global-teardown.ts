/** Frees this run's slots for the next run on this host (the databases stay until then). */
export default async function globalTeardown(): Promise<void> {
  await globalThis.testRunSlots?.release();
  globalThis.testRunSlots = undefined;
}
