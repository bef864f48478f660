import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NetworkConfig, NetworkName, TronPayoutTransport } from '@app/chains';
import { HotWallets } from './hot-wallets';
import { PayoutAttempt } from './payout-attempt.types';
import { PayoutBroadcaster } from './payout-broadcaster';
import { PayoutJournalRepository } from './payout-journal.repository';
import { PayoutNoncesRepository } from './payout-nonces.repository';
import { PayoutSigner } from './payout-signer';
import { liveIds, Tick, TrackReport } from './payout-tick';
import { PayoutTickSteps } from './payout-tick-steps';
import { InFlightPayout } from './payout-tracking.repository';

/**
 * The tracker's TRON payouts (no nonces), one at a time: decided on the chain's word, re-sent,
 * and signed anew only once the live transaction is proven expired unmined.
 */
@Injectable()
export class TronPayoutTracking {
  constructor(
    private readonly dataSource: DataSource,
    private readonly journal: PayoutJournalRepository,
    private readonly nonces: PayoutNoncesRepository,
    private readonly wallets: HotWallets,
    private readonly signer: PayoutSigner,
    private readonly broadcaster: PayoutBroadcaster,
    private readonly steps: PayoutTickSteps,
  ) {}

  async track(
    network: NetworkConfig,
    transport: TronPayoutTransport,
    payout: InFlightPayout,
    report: TrackReport,
    tick: Tick,
  ): Promise<void> {
    const [latest] = payout.attempts;
    if (!latest) return;
    const lookup = await transport.lookup(latest.tx_hash);
    if (lookup.state === 'mined')
      return this.steps.onMined(network, payout, latest, lookup, report);
    if (lookup.state === 'pending') return;
    // "Unknown" is an absence (a backend behind may not have it yet): only the blocks of its
    // whole window, read and without it, prove it will never be mined.
    // (The chain's clock decides, not ours: the proof starts from the solidified head's time.)
    const known = await this.journal.attemptsOf(payout.id);
    if (await transport.provenExpired(latest.raw_transaction)) {
      return this.resignTron(payout, known, latest, report);
    }
    await this.steps.rebroadcast(latest, report, tick);
  }

  /** The live transaction expired unmined (proven by the caller from `known`): a new one. */
  private async resignTron(
    payout: InFlightPayout,
    known: PayoutAttempt[],
    proven: PayoutAttempt,
    report: TrackReport,
  ): Promise<void> {
    // The proof is about one transaction: it must be the only live attempt.
    const provenDead = (attempt: Pick<PayoutAttempt, 'tx_hash'>) =>
      attempt.tx_hash === proven.tx_hash;
    const key = this.wallets.get(payout.network as NetworkName);
    if (!key) return;
    const signed = await this.signer.buildTron(payout, key);
    const attempt = await this.dataSource.transaction(async (manager) => {
      const locked = await this.journal.lockProcessing(manager, payout.id);
      if (
        !locked ||
        !(await this.journal.attemptsUnchanged(manager, payout.id, known, provenDead))
      ) {
        return null;
      }
      // Only the registered wallet signs (two workers may hold different key files).
      await this.nonces.lockWalletNonce(manager, payout.network, key.address);
      await this.journal.retireAttempts(manager, payout.id, liveIds(known), 'Expired');
      return this.signer.journalTron(manager, locked, key, signed);
    });
    if (!attempt) return;
    report.resigned += 1;
    await this.broadcaster.broadcast(attempt);
  }
}
