import { setImmediate } from 'node:timers/promises';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { CHAIN_FAMILIES, ChainFamily, HdWallet } from '@app/chains';
import { APP_CONFIG, AppConfig } from '@app/common';
import { DerivedAddress, PayAddressesRepository } from './pay-addresses.repository';

// Derivation costs a fraction of a millisecond of CPU per address, so the worker keeps addresses
// ready (PAY_ADDRESS_POOL_TARGET) and the API only claims one.
const REFILL_BATCH_SIZE = 500;
// Derivations between two turns of the event loop (a few ms of CPU): the worker's other jobs
// (payouts, deposit ticks, queue heartbeats) wait at most that long for a refill, not a batch.
export const DERIVATIONS_PER_TURN = 16;
// Each API process takes this many pooled addresses per round trip and hands them out from memory.
export const CLAIM_BATCH_SIZE = 50;

@Injectable()
export class PayAddressPool {
  private readonly logger = new Logger(PayAddressPool.name);
  private readonly reserved = new Map<string, DerivedAddress[]>();
  private readonly refilling = new Map<string, Promise<void>>();
  private readonly lastClaimedIndex = new Map<string, number>();

  constructor(
    private readonly hdWallet: HdWallet,
    private readonly addresses: PayAddressesRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The HD key addresses are derived from now; claims only take addresses of this key. */
  fingerprintOf(family: ChainFamily): string {
    return this.hdWallet.accountFor(family).fingerprint;
  }

  /**
   * A fresh address for a new session: from this process's reserve, refilled from the shared pool
   * in batches; derived on the spot when the pool is empty. Call it BEFORE opening the request's
   * transaction: it uses connections of its own, and waiting for one while holding another would
   * deadlock the connection pool under load.
   */
  async next(family: ChainFamily): Promise<DerivedAddress> {
    const fingerprint = this.fingerprintOf(family);
    const key = `${family}:${fingerprint}`;
    let reserve = this.reserved.get(key);
    if (!reserve?.length) {
      // One batch claim at a time per family; concurrent requests wait for it.
      let refill = this.refilling.get(key);
      if (!refill) {
        refill = this.claimBatch(family, fingerprint, key).finally(() =>
          this.refilling.delete(key),
        );
        this.refilling.set(key, refill);
      }
      await refill;
      reserve = this.reserved.get(key);
    }
    return reserve?.shift() ?? this.deriveClaimed(family);
  }

  private async claimBatch(family: ChainFamily, fingerprint: string, key: string): Promise<void> {
    const after = this.lastClaimedIndex.get(key) ?? -1;
    let batch = await this.addresses.claimBatch(family, fingerprint, CLAIM_BATCH_SIZE, after);
    // Nothing above our last claim: look once from the start (rows skipped while locked elsewhere).
    if (!batch.length && after >= 0) {
      batch = await this.addresses.claimBatch(family, fingerprint, CLAIM_BATCH_SIZE, -1);
    }
    if (batch.length) this.lastClaimedIndex.set(key, batch[batch.length - 1].derivationIndex);
    this.reserved.set(key, [...(this.reserved.get(key) ?? []), ...batch]);
  }

  /**
   * Fallback when the pool is empty: reserve an index, derive on the spot and record the address
   * as claimed. Correct, just slower than a pooled claim.
   */
  private async deriveClaimed(family: ChainFamily): Promise<DerivedAddress> {
    const fingerprint = this.fingerprintOf(family);
    const derivationIndex = await this.addresses.reserveIndexes(family, fingerprint, 1);
    const derived = { derivationIndex, address: this.hdWallet.derive(family, derivationIndex) };
    await this.addresses.insertClaimed(family, fingerprint, derived);
    return derived;
  }

  /** Tops every chain family up to `targetSize` unclaimed addresses when below the watermark. */
  async refillAll(
    targetSize = this.config.payAddressPool.targetSize,
    lowWatermark = Math.min(this.config.payAddressPool.lowWatermark, targetSize),
  ): Promise<Record<ChainFamily, number>> {
    const added = {} as Record<ChainFamily, number>;
    for (const family of CHAIN_FAMILIES) {
      added[family] = await this.refill(family, targetSize, lowWatermark);
    }
    return added;
  }

  /**
   * One refill per key at a time across all workers (an advisory lock): two workers that both saw
   * the pool low would otherwise each derive the whole shortfall. A worker that finds the lock
   * taken adds nothing; the holder fills the pool.
   */
  async refill(family: ChainFamily, targetSize: number, lowWatermark: number): Promise<number> {
    const fingerprint = this.fingerprintOf(family);
    const added = await this.addresses.whileRefillLocked(family, fingerprint, () =>
      this.refillLocked(family, fingerprint, targetSize, lowWatermark),
    );
    return added ?? 0;
  }

  private async refillLocked(
    family: ChainFamily,
    fingerprint: string,
    targetSize: number,
    lowWatermark: number,
  ): Promise<number> {
    const unclaimed = await this.addresses.countUnclaimed(family, fingerprint);
    if (unclaimed >= lowWatermark) return 0;
    let missing = targetSize - unclaimed;
    let added = 0;
    while (missing > 0) {
      const count = Math.min(missing, REFILL_BATCH_SIZE);
      const first = await this.addresses.reserveIndexes(family, fingerprint, count);
      const batch: DerivedAddress[] = [];
      for (let index = first; index < first + count; index++) {
        batch.push({ derivationIndex: index, address: this.hdWallet.derive(family, index) });
        // A refill of the whole pool is half a minute of CPU: in 150 ms batches, every step of
        // every other job waited for one.
        if (batch.length % DERIVATIONS_PER_TURN === 0) await setImmediate();
      }
      await this.addresses.insertUnclaimed(family, fingerprint, batch);
      missing -= count;
      added += count;
    }
    this.logger.log({ family, added, unclaimed: unclaimed + added }, 'Pay-address pool refilled');
    return added;
  }
}
