import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NetworkName } from '@app/chains';
import { SignedTronTransaction } from '@app/chains/sweeps/tron-sweep-transport';
import { sendWhileLive } from './live-sweep-send';
import { SweepKeys } from './sweep-keys';
import { SweepJournalRepository } from './sweep-journal.repository';
import { SweepTrackReport } from './sweep-tracker';
import { stakeForEnergy, TronSweepChain } from './tron-sweep-chain';
import { TronSweepChains } from './tron-sweep-chains';
import { TronSweepBooks } from './tron-sweep-books';
import {
  TronStep,
  TronStepRow,
  TronSweepJournalRepository,
  TronSweepRow,
} from './tron-sweep-journal.repository';
import { lentByJournal } from './tron-sweep-lent';
import { withMargin } from './tron-sweep-policy';

/** What a step's transaction needs to be built: the address, its token, where it goes. */
export type TronStepTarget = Pick<
  TronSweepRow,
  | 'network'
  | 'address'
  | 'derivation_index'
  | 'token_contract'
  | 'destination_address'
  | 'sweeper_address'
>;

/** Steps the staking account signs: only ever with the key of the sweep's own staking account. */
const STAKING_STEPS: ReadonlySet<TronStep> = new Set(['activate', 'delegate', 'undelegate']);
/** Steps that spend the staking account's TRX or lend its stake anew. */
const LENDING_STEPS: ReadonlySet<TronStep> = new Set(['activate', 'delegate']);

/** A signed step; or `skip` (nothing for it to do: go on), or `wait` (not now: next pass). */
export type PreparedStep = SignedTronTransaction | 'skip' | 'wait';

/** After a step: the next one ('end': nothing lent any more, the sweep ends). */
const NEXT: Record<TronStep, (succeeded: boolean) => TronStep | 'end'> = {
  activate: (succeeded) => (succeeded ? 'delegate' : 'end'),
  delegate: (succeeded) => (succeeded ? 'transfer' : 'undelegate'),
  transfer: () => 'undelegate',
  // Energy must never stay lent: a failed take-back is tried again.
  undelegate: (succeeded) => (succeeded ? 'end' : 'undelegate'),
};
/** A step with nothing to do hands over to: */
const ON_SKIP: Record<TronStep, TronStep | 'end'> = {
  activate: 'delegate',
  delegate: 'undelegate',
  transfer: 'undelegate',
  undelegate: 'end',
};

/**
 * Takes each live TRON sweep through its steps: activate (once per address), lend energy, move
 * the whole balance, take the energy back. A step is done only when the solidity API (an
 * irreversible block) holds its transaction; then it is booked and the next step is signed,
 * journaled, and sent. A step nobody has heard of is sent again from its stored bytes, and
 * signed anew only once its stored transaction is proven expired (every block of its window
 * solidified without it).
 */
@Injectable()
export class TronSweepSteps {
  private readonly logger = new Logger(TronSweepSteps.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly keys: SweepKeys,
    private readonly chains: TronSweepChains,
    private readonly journal: TronSweepJournalRepository,
    private readonly broadcasts: SweepJournalRepository,
    private readonly books: TronSweepBooks,
  ) {}

  /**
   * `lend: false` while sweeping is refused (the staking account is the hot wallet): live sweeps
   * still move their tokens and take their energy back, but activate or lend nothing more.
   */
  async track(name: NetworkName, lend = true): Promise<SweepTrackReport> {
    const report: SweepTrackReport = { completed: 0, abandoned: 0, replaced: 0, rebroadcast: 0 };
    const chain = await this.chains.chainFor(name);
    if (!chain || !this.keys.sweeperFor(name)) return report;
    for (const sweep of await this.journal.live(name)) {
      try {
        await this.advance(chain, sweep, report, lend);
      } catch (error) {
        // One address's trouble (a node error, a refused read) must not hold the others up:
        // nothing was journaled half-way, the next pass takes it up again.
        this.logger.warn(
          { sweepId: sweep.id, error: error instanceof Error ? error.message : String(error) },
          'TRON sweep not advanced this pass',
        );
      }
    }
    return report;
  }

  private async advance(
    chain: TronSweepChain,
    sweep: TronSweepRow,
    report: SweepTrackReport,
    lend: boolean,
  ) {
    const steps = await this.journal.steps(sweep.id);
    const newest = steps[steps.length - 1];
    if (newest.status === 'Expired') {
      return this.signAndSend(chain, sweep, newest.step, newest, lend);
    }
    const mined = await chain.solidified(newest.tx_hash);
    if (newest.status !== 'Mined') {
      if (!mined) return this.resendOrResign(chain, sweep, newest, report, lend);
      if (!(await this.books.settle(sweep, newest, mined))) return;
    }
    // Mined (now or by an earlier pass): the solidified info is final, read again after a crash.
    if (!mined) return;
    const next = NEXT[newest.step](mined.succeeded);
    if (next === 'end') {
      // Settled as it ended (the energy is back, or the activation failed with nothing lent).
      if (!(await this.journal.lockLive(this.dataSource.manager, sweep.id))) report.completed += 1;
      return;
    }
    const fresh = (await this.journal.live(sweep.network)).find((row) => row.id === sweep.id);
    if (fresh) await this.signAndSend(chain, fresh, next, newest, lend);
  }

  /** Not in an irreversible block: wait while a node has it, else re-send, or re-sign if expired. */
  private async resendOrResign(
    chain: TronSweepChain,
    sweep: TronSweepRow,
    step: TronStepRow,
    report: SweepTrackReport,
    lend: boolean,
  ): Promise<void> {
    const lookup = await chain.payouts.lookup(step.tx_hash);
    if (lookup.state !== 'unknown') return; // pending, or in a block not yet irreversible
    if (await chain.payouts.provenExpired(step.raw_transaction)) {
      this.logger.warn(
        { sweepId: sweep.id, step: step.step, txHash: step.tx_hash },
        'TRON sweep step proven expired: signed again',
      );
      await this.signAndSend(chain, sweep, step.step, step, lend);
      return;
    }
    // The node does not know it (never sent, lost by a restart, refused): the same bytes again.
    report.rebroadcast += 1;
    await this.send(chain, step);
  }

  /**
   * Signs `step` (or what it hands over to when it has nothing to do), journals it as the attempt
   * after `after`, and sends it. Journaled only if `after` is still the newest attempt and live
   * or mined: another pass that got there first wins, and nothing is signed twice.
   */
  private async signAndSend(
    chain: TronSweepChain,
    sweep: TronSweepRow,
    first: TronStep,
    after: TronStepRow,
    lend: boolean,
  ): Promise<void> {
    let step: TronStep | 'end' = first;
    let prepared: PreparedStep = 'skip';
    while (step !== 'end') {
      if (!lend && LENDING_STEPS.has(step)) {
        prepared = 'wait';
        break;
      }
      const lent = step === 'undelegate' ? await this.lent(chain, sweep) : undefined;
      prepared = await this.prepare(chain, sweep, step, lent);
      if (prepared !== 'skip') break;
      step = ON_SKIP[step];
    }
    if (prepared === 'wait') return;
    if (step === 'end' || prepared === 'skip') {
      await this.books.finish(sweep, 'Nothing left to move on the address.');
      return;
    }
    const signed = prepared;
    const current = step;
    const row = await this.dataSource.transaction(async (manager) => {
      if (!(await this.journal.lockLive(manager, sweep.id))) return null;
      const steps = await this.journal.steps(sweep.id, manager);
      const newest = steps[steps.length - 1];
      if (newest.id !== after.id || newest.status !== after.status) return null;
      // The step it replaces was proven expired: it can never be mined.
      if (newest.status === 'Signed' || newest.status === 'Broadcast') {
        await this.journal.setStatus(manager, newest.id, 'Expired');
      }
      return this.journal.insertStep(
        manager,
        sweep.id,
        sweep.network,
        newest.attempt_number + 1,
        current,
        signed,
      );
    });
    if (row) await this.send(chain, row);
  }

  /**
   * The stake the sweep still lends its address, from its journal (tron-sweep-lent.ts). Each
   * mined step's outcome is its solidified info, final once there; a node that does not answer
   * it yet makes the sweep wait (throws: the next pass tries again), never guess 0.
   */
  private async lent(chain: TronSweepChain, sweep: TronSweepRow): Promise<bigint> {
    const steps = await this.journal.steps(sweep.id);
    const outcomes = new Map<string, boolean>();
    for (const step of steps) {
      if (step.status !== 'Mined' || (step.step !== 'delegate' && step.step !== 'undelegate')) {
        continue;
      }
      const mined = await chain.solidified(step.tx_hash);
      if (!mined) {
        throw new Error(`TRON sweep ${sweep.id}: mined step ${step.tx_hash} not answered yet`);
      }
      outcomes.set(step.tx_hash, mined.succeeded);
    }
    return lentByJournal(steps, (step) => outcomes.get(step.tx_hash) === true);
  }

  /**
   * Builds and signs a step from what the chain shows now; the caller journals it. A take-back
   * is of `lentSun`, the stake the sweep's journal says it still lends (never a node's read).
   */
  async prepare(
    chain: TronSweepChain,
    target: TronStepTarget,
    step: TronStep,
    lentSun?: bigint,
  ): Promise<PreparedStep> {
    const network = target.network as NetworkName;
    const staking = this.keys.sweeperFor(network);
    const settings = this.keys.settings.get(network);
    if (!staking || !settings) return 'wait';
    // Another account never signs for the sweep's: a take-back it signs undoes nothing the
    // sweep lent. The sweep waits until its staking key is configured again (treasury:status).
    if (STAKING_STEPS.has(step) && staking.address !== target.sweeper_address) {
      this.logger.warn(
        { network, address: target.address, staking: target.sweeper_address, step },
        "TRON sweep waits for its own staking account's key",
      );
      return 'wait';
    }
    const { transport } = chain;
    const margin = settings.tronEnergyMarginPercent;
    switch (step) {
      case 'activate': {
        const state = await transport.accountState(target.address);
        if (state.activated) return 'skip';
        return transport.buildActivate(staking, target.address);
      }
      case 'delegate': {
        const balance = await transport.tokenBalance(target.address, target.token_contract);
        if (balance === 0n) return 'skip';
        const cost = await transport.estimateSweepCost(
          target.address,
          target.token_contract,
          target.destination_address,
          balance,
        );
        const { ratio, lendableSun } = await chain.stakingState(staking.address);
        const stake = stakeForEnergy(withMargin(cost.energy, margin), ratio);
        if (stake > lendableSun) {
          this.logger.warn(
            { network, stakeSun: stake.toString(), lendableSun: lendableSun.toString() },
            'TRON staking account has too little energy stake to lend: sweep waits',
          );
          return 'wait';
        }
        return transport.buildDelegateEnergy(staking, target.address, stake);
      }
      case 'transfer':
        return this.prepareTransfer(chain, target, margin);
      case 'undelegate': {
        if (lentSun === undefined) throw new Error('TRON: a take-back needs the journal amount');
        if (lentSun === 0n) return 'skip';
        return transport.buildUndelegateEnergy(staking, target.address, lentSun);
      }
    }
  }

  /**
   * The whole balance, under a fee_limit of the estimated energy at the chain's price plus the
   * margin: with at least that much energy lent, the transfer burns nothing, and an address
   * short of energy or bandwidth is not asked to sign at all (it holds no TRX to burn).
   */
  private async prepareTransfer(
    chain: TronSweepChain,
    target: TronStepTarget,
    margin: Parameters<typeof withMargin>[1],
  ): Promise<PreparedStep> {
    const { transport } = chain;
    const balance = await transport.tokenBalance(target.address, target.token_contract);
    if (balance === 0n) return 'skip';
    const [cost, state] = await Promise.all([
      transport.estimateSweepCost(
        target.address,
        target.token_contract,
        target.destination_address,
        balance,
      ),
      transport.accountState(target.address),
    ]);
    const energy = withMargin(cost.energy, margin);
    if (state.energyAvailable < energy || state.bandwidthAvailable < cost.bandwidthBytes) {
      this.logger.warn(
        {
          address: target.address,
          energy: state.energyAvailable.toString(),
          needed: energy.toString(),
          bandwidth: state.bandwidthAvailable.toString(),
        },
        'TRON deposit address short of energy or bandwidth: transfer not signed',
      );
      return 'skip';
    }
    return transport.buildSweepTransfer(
      this.keys.depositPrivateKey('TRON', target.derivation_index),
      target.token_contract,
      target.destination_address,
      balance,
      energy * cost.energyPriceSun,
    );
  }

  /**
   * The stored bytes, exactly, of a live sweep only (live-sweep-send.ts); what the node said is
   * recorded. Safe to repeat.
   */
  async send(chain: TronSweepChain, step: TronStepRow): Promise<void> {
    let accepted = false;
    const result = await sendWhileLive(this.dataSource, step.sweep_id, async () => {
      try {
        const answer = await chain.transport.broadcast(step.raw_transaction);
        accepted = answer.kind === 'accepted' || answer.kind === 'already_known';
        return answer.kind === 'rejected' ? `rejected: ${answer.reason}` : answer.kind;
      } catch (error) {
        return `error: ${error instanceof Error ? error.message : String(error)}`;
      }
    });
    if (result === null) return;
    await this.broadcasts.recordBroadcast(step.id, result, accepted);
    if (!accepted) {
      this.logger.warn(
        { sweepId: step.sweep_id, step: step.step, txHash: step.tx_hash, result },
        'TRON sweep step not accepted',
      );
    }
  }
}
