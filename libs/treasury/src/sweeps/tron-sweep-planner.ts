import { Injectable, Logger } from '@nestjs/common';
import Decimal from 'decimal.js';
import { DataSource } from 'typeorm';
import { Currency, NetworkConfig, NetworkName, NetworkRegistry } from '@app/chains';
import { fromBaseUnits } from '@app/ledger';
import { newId } from '@app/common';
import { SweepTickReport } from './evm-sweeper';
import { SweepKeys } from './sweep-keys';
import { SweepDestination, SweepJournalRepository } from './sweep-journal.repository';
import { PendingDepositAddress, SweepPlannerRepository } from './sweep-planner.repository';
import { destinationFor, SweepDecision } from './sweep-policy';
import { sweeperIsHotWallet } from './sweep-safety';
import { StrangerCoin } from './stranger-coin';
import { TronSweepChain } from './tron-sweep-chain';
import { TronSweepChains } from './tron-sweep-chains';
import { provenEmpty } from './tron-sweep-emptiness';
import { TronStep, TronStepRow, TronSweepJournalRepository } from './tron-sweep-journal.repository';
import { decideTronSweep, TronPrices, tronSweepCostSun } from './tron-sweep-policy';
import { TronSweepSteps, TronStepTarget } from './tron-sweep-steps';
import { NetworkTreasurySettings } from './treasury-settings';

/** What start answers when the sweep waits for a read of the address's TRX. */
export const TRX_READ_WAITS = 'trx_read_waits';

/** Addresses read per token per pass: the oldest pending first. */
const CANDIDATES_PER_TICK = 2_000;
/** TRON sweeps in flight per network (one address each). */
export const MAX_LIVE_TRON_SWEEPS = 20;
/** Balance and account reads in flight at once: TRON has no Multicall. */
const READS_IN_FLIGHT = 8;
/**
 * Bytes of a sweep transfer (about 345): an activated address needs this much free bandwidth
 * left today, or it would have to burn TRX it does not have (java-tron refuses it).
 */
export const SWEEP_TRANSFER_BYTES = 350n;

export type TronSweepDecision =
  SweepDecision | { sweep: false; reason: 'no_bandwidth'; estimatedCost: Decimal };

export interface TronAssessedAddress extends PendingDepositAddress {
  balanceBaseUnits: bigint;
  activated: boolean;
  decision: TronSweepDecision;
}

export interface TronTokenAssessment {
  candidates: number;
  emptied: number;
  funded: TronAssessedAddress[];
}

/**
 * Plans TRON sweeps, one address each (TRON has no batching): reads the pending deposit
 * addresses' balances (concurrency-limited), clears those read empty, weighs each funded one's
 * cost (activation the first time, the bandwidth of lending and taking back energy) and journals
 * the first step of those the policy allows before sending it.
 */
@Injectable()
export class TronSweepPlanner {
  private readonly logger = new Logger(TronSweepPlanner.name);
  /** The refusal last logged per network: logged at error once, not every pass. */
  private readonly refused = new Map<NetworkName, string | null>();
  /** Networks whose TRX read at a block failed, logged at error once until one succeeds. */
  private readonly noBalanceAtBlock = new Set<NetworkName>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly networks: NetworkRegistry,
    private readonly keys: SweepKeys,
    private readonly chains: TronSweepChains,
    private readonly planner: SweepPlannerRepository,
    private readonly journal: TronSweepJournalRepository,
    private readonly sweepJournal: SweepJournalRepository,
    private readonly steps: TronSweepSteps,
    private readonly strangers: StrangerCoin,
  ) {}

  async plan(name: NetworkName, now = new Date()): Promise<SweepTickReport> {
    const report: SweepTickReport = {
      network: name,
      candidates: 0,
      emptied: 0,
      sweeps: [],
      deferredTrxRead: 0,
    };
    const network = this.networks.get(name);
    const settings = this.keys.settings.get(name);
    const chain = await this.chains.chainFor(name);
    if (!settings || !chain || !this.keys.sweeperFor(name)) return report;
    const live = await this.journal.live(name);
    if (live.length >= MAX_LIVE_TRON_SWEEPS) return { ...report, deferred: 'lane_full' };
    const prices = await this.prices(chain);
    const busy = await this.journal.liveAddresses(name);
    let room = MAX_LIVE_TRON_SWEEPS - live.length;
    for (const currency of Object.keys(network.tokens) as Currency[]) {
      const assessment = await this.assess(network, settings, chain, currency, prices, now);
      report.candidates += assessment.candidates;
      report.emptied += assessment.emptied;
      for (const candidate of assessment.funded) {
        if (room <= 0) break;
        if (!candidate.decision.sweep || busy.has(candidate.address)) continue;
        const started = await this.start(chain, network, settings, currency, candidate).catch(
          (error: unknown) => {
            this.logger.warn(
              {
                address: candidate.address,
                error: error instanceof Error ? error.message : String(error),
              },
              'TRON sweep not started this pass',
            );
            return null;
          },
        );
        if (started === TRX_READ_WAITS) {
          report.deferredTrxRead! += 1;
          continue;
        }
        if (!started) continue;
        busy.add(candidate.address);
        report.sweeps.push(started.sweep_id);
        room -= 1;
      }
    }
    return report;
  }

  /**
   * Why the network may not plan sweeps with this configuration, or null: the staking account
   * must not be the payout hot wallet. Live sweeps are still followed (their tokens moved, their
   * energy taken back), each with its own staking account's key, but nothing more is lent.
   */
  async refusal(name: NetworkName): Promise<string | null> {
    const staking = this.keys.sweeperFor(name);
    if (!staking) return null;
    const refusal = sweeperIsHotWallet('TRON', staking.address, await this.chains.hotWallet(name));
    if (refusal && this.refused.get(name) !== refusal) {
      this.logger.error({ network: name, refusal }, 'Sweeping refused');
    }
    this.refused.set(name, refusal);
    return refusal;
  }

  async prices(chain: TronSweepChain): Promise<TronPrices> {
    const [systemFee, accountFee, bandwidthSun] = await Promise.all([
      chain.chainParameter('getCreateNewAccountFeeInSystemContract'),
      chain.chainParameter('getCreateAccountFee'),
      chain.chainParameter('getTransactionFee'),
    ]);
    return { activationSun: systemFee + accountFee, bandwidthSun };
  }

  /**
   * The pending addresses of a token, their balances read after the head block B, and the
   * policy's decision for each funded one. Those read empty are read again on the solidity API:
   * zero there past every transfer known for them, they are cleared (the positive proof that
   * nothing is left; tron-sweep-emptiness.ts).
   */
  async assess(
    network: NetworkConfig,
    settings: NetworkTreasurySettings,
    chain: TronSweepChain,
    currency: Currency,
    prices: TronPrices,
    now: Date,
    /** treasury:status: nothing written (no transfer ingested, no address cleared). */
    readOnly = false,
  ): Promise<TronTokenAssessment> {
    const token = network.tokens[currency]!;
    const listed = await this.planner.candidates(
      network.name,
      currency,
      {
        family: 'TRON',
        fingerprint: this.keys.fingerprint('TRON'),
        limit: CANDIDATES_PER_TICK,
        now,
        backoffSeconds: settings.retryBackoffSeconds,
      },
      readOnly,
    );
    const assessment: TronTokenAssessment = { candidates: listed.length, emptied: 0, funded: [] };
    if (!listed.length) return assessment;
    const block = await chain.headBlock();
    // A read before a known transfer's block proves nothing about it: those wait for the node.
    const pending = listed.filter((candidate) => candidate.pendingBlock <= block);
    const balances = await inBatches(pending, (candidate) =>
      chain.transport.tokenBalance(candidate.address, token.contract),
    );
    // A full node's zero is only a hint (a fork, a backend behind the transfer): an address is
    // cleared only on a zero the solidity API reads past its newest known transfer.
    const zero = pending.filter((_, index) => balances[index] === 0n);
    const proven = zero.length
      ? provenEmpty(
          zero,
          await chain.transport.solidTokenBalances(
            zero.map((candidate) => candidate.address),
            token.contract,
          ),
        )
      : { empty: [], block };
    const empty = proven.empty;
    if (!readOnly)
      await this.planner.markEmpty(
        network.name,
        currency,
        empty.map((candidate) => candidate.address),
        proven.block,
      );
    assessment.emptied = empty.length;
    const funded = pending
      .map((candidate, index) => ({ candidate, balance: balances[index] }))
      .filter(({ balance }) => balance > 0n);
    const states = await inBatches(funded, ({ candidate }) =>
      chain.transport.accountState(candidate.address),
    );
    assessment.funded = funded.map(({ candidate, balance }, index) => {
      const state = states[index];
      const costSun = tronSweepCostSun(!state.activated, prices);
      let decision: TronSweepDecision = decideTronSweep(
        fromBaseUnits(balance, token.decimals),
        candidate.pendingSince,
        costSun,
        settings,
        now,
      );
      // Activated and its free bandwidth used today: the transfer would need TRX it lacks.
      if (decision.sweep && state.activated && state.bandwidthAvailable < SWEEP_TRANSFER_BYTES) {
        decision = { sweep: false, reason: 'no_bandwidth', estimatedCost: decision.estimatedCost };
      }
      return { ...candidate, balanceBaseUnits: balance, activated: state.activated, decision };
    });
    return assessment;
  }

  /**
   * Journals the sweep with its first step, then sends it; null when nothing was started,
   * TRX_READ_WAITS when it waits for a read of the address's TRX (counted, listed, and logged).
   */
  async start(
    chain: TronSweepChain,
    network: NetworkConfig,
    settings: NetworkTreasurySettings,
    currency: Currency,
    candidate: TronAssessedAddress,
  ): Promise<TronStepRow | typeof TRX_READ_WAITS | null> {
    // No proof of what TRX the address holds, no sweep: its transfer could burn a third party's
    // TRX before it is booked as theirs.
    const read = await this.detectStrangerTrx(chain, network.name, candidate.address);
    await this.planner.markTrxReadWaiting(network.name, currency, candidate.address, !read);
    if (!read) return TRX_READ_WAITS;
    const row = await this.journalStart(chain, network, settings, currency, candidate);
    if (row) await this.steps.send(chain, row);
    return row;
  }

  /**
   * TRX a third party sent the address, read from an irreversible block, booked as theirs
   * (stranger-coin.ts) before the sweep. True only once the read proved what the address
   * holds (and any excess is booked); a failed read, or one that proves nothing, books nothing
   * and is false: the sweep waits for the next pass.
   */
  private async detectStrangerTrx(
    chain: TronSweepChain,
    name: NetworkName,
    address: string,
  ): Promise<boolean> {
    try {
      // Once a transfer of the address burnt TRX, a read from a backend behind that burn would
      // show the burnt TRX as a stranger's: the balance must be the one at the block read.
      const tied = await this.strangers.burnt(name, address);
      const solid = await chain.solidTrxBalance(address, tied).catch((error: unknown) => {
        if (tied) this.noBalanceAtBlockLogged(name, error);
        throw error;
      });
      if (tied) this.noBalanceAtBlock.delete(name);
      if (!solid) throw new Error('the solidity API answered from another backend');
      const booked = await this.strangers.book(name, address, solid.balanceSun, solid.block);
      if (booked === null) throw new Error(`read at block ${solid.block}, before its last sweep`);
      return true;
    } catch (error) {
      this.logger.warn(
        { address, error: error instanceof Error ? error.message : String(error) },
        'TRX on a deposit address not read: its sweep waits for the next pass',
      );
      return false;
    }
  }

  /**
   * The first failed read of TRX at a block on a network, at error: java-tron answers it only
   * with balance history (storage.balance.history.lookup, off by default), and without it the
   * sweeps of every address whose TRX a sweep burnt wait for good.
   */
  private noBalanceAtBlockLogged(name: NetworkName, error: unknown): void {
    if (this.noBalanceAtBlock.has(name)) return;
    this.noBalanceAtBlock.add(name);
    this.logger.error(
      { network: name, error: error instanceof Error ? error.message : String(error) },
      'TRON node answers no TRX balance at a block (wallet/getaccountbalance needs ' +
        'storage.balance.history.lookup): sweeps of addresses whose TRX a sweep burnt wait ' +
        'until it does (treasury:status lists them)',
    );
  }

  /** The write-ahead half of start: the sweep and its signed first step, stored, not sent. */
  async journalStart(
    chain: TronSweepChain,
    network: NetworkConfig,
    settings: NetworkTreasurySettings,
    currency: Currency,
    candidate: TronAssessedAddress,
  ): Promise<TronStepRow | null> {
    const token = network.tokens[currency]!;
    const staking = this.keys.sweeperFor(network.name)!;
    const destination = await this.destination(chain, network, settings, currency);
    const destinationAddress =
      destination === 'treasury'
        ? settings.treasuryAddress!
        : await this.chains.hotWallet(network.name);
    if (!destinationAddress) return null;
    const target: TronStepTarget = {
      network: network.name,
      address: candidate.address,
      derivation_index: candidate.derivationIndex,
      token_contract: token.contract,
      destination_address: destinationAddress,
      sweeper_address: staking.address,
    };
    let step: TronStep = candidate.activated ? 'delegate' : 'activate';
    let prepared = await this.steps.prepare(chain, target, step);
    if (prepared === 'skip' && step === 'activate') {
      step = 'delegate';
      prepared = await this.steps.prepare(chain, target, step);
    }
    if (prepared === 'skip' || prepared === 'wait') return null;
    const signed = prepared;
    try {
      return await this.dataSource.transaction((manager) =>
        this.journal.insert(
          manager,
          {
            id: newId('sw'),
            network: network.name,
            currency,
            tokenContract: token.contract,
            tokenDecimals: token.decimals,
            destination,
            destinationAddress,
            stakingAddress: staking.address,
            address: candidate.address,
            derivationIndex: candidate.derivationIndex,
            expectedAmount: fromBaseUnits(candidate.balanceBaseUnits, token.decimals).toFixed(),
            activates: step === 'activate',
          },
          step,
          signed,
        ),
      );
    } catch (error) {
      // Another pass put the address in a live sweep first (the unique index): nothing signed
      // here is ever sent.
      if ((error as { code?: string }).code === '23505') return null;
      throw error;
    }
  }

  private async destination(
    chain: TronSweepChain,
    network: NetworkConfig,
    settings: NetworkTreasurySettings,
    currency: Currency,
  ): Promise<SweepDestination> {
    const target = settings.hotWalletTarget[currency];
    if (!settings.treasuryAddress || target === undefined) return 'hot_wallet';
    const hot = await this.chains.hotWallet(network.name);
    if (!hot) return 'treasury';
    const token = network.tokens[currency]!;
    const held = await chain.transport.tokenBalance(hot, token.contract);
    const inbound = new Decimal(await this.sweepJournal.inboundToHotWallet(network.name, currency));
    return destinationFor(fromBaseUnits(held, token.decimals).plus(inbound), target, true);
  }
}

/** `read` of every item, READS_IN_FLIGHT at a time, in order. */
async function inBatches<T, R>(items: T[], read: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += READS_IN_FLIGHT) {
    results.push(...(await Promise.all(items.slice(start, start + READS_IN_FLIGHT).map(read))));
  }
  return results;
}
