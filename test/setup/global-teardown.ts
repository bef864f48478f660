/** Frees this run's slot for the next run on this host (the database stays until then). */
export default async function globalTeardown(): Promise<void> {
  await globalThis.testRunSlot?.release();
  globalThis.testRunSlot = undefined;
}
